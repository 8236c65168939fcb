package rolling_test

import (
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/rolling"
)

func Example() {
	// Hadoop's layout: 36 windows of 5 minutes, so averages span 3 hours.
	peers := rolling.New(rolling.HadoopDefaultWindow, rolling.HadoopDefaultWindows)

	// Windows are aligned to the epoch: 08:00 UTC starts one.
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i := range 4 {
		at := start.Add(time.Duration(i) * time.Minute)
		peers.AddAt(at, "10.0.0.2:9866", 2)                // packet mirrored in 2 ms
		peers.AddAt(at, "10.0.0.5:9866", 40)               // a slow peer
		peers.AddAt(at, "10.0.0.5:9866", 60)               //
		peers.AddAt(at.Add(time.Hour), "10.0.0.9:9866", 3) // seen an hour later
	}

	// Keys with more than 3 samples (the DataNode asks for more than 1000).
	now := start.Add(90 * time.Minute)
	for _, avg := range peers.Snapshot(now, 3) {
		fmt.Printf("%s: %.1f ms over %d packets\n", avg.Key, avg.Mean, avg.Count)
	}

	// Three hours after 08:00 the first window has expired, and with it the
	// two peers seen only then; the third is still held.
	fmt.Println(len(peers.Snapshot(start.Add(3*time.Hour), 3)), "eligible,", peers.Len(), "held")
	// Output:
	// 10.0.0.2:9866: 2.0 ms over 4 packets
	// 10.0.0.5:9866: 50.0 ms over 8 packets
	// 10.0.0.9:9866: 3.0 ms over 4 packets
	// 1 eligible, 1 held
}
