package tracker_test

import (
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// Two DataNodes report 10.0.0.5 slow and one of them also reports 10.0.0.7:
// Top ranks 10.0.0.5 first, with its two reporters sorted by name.
func Example() {
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	tr := tracker.New(90 * time.Minute) // 3 × dfs.datanode.outliers.report.interval
	tr.Report(t0, "10.0.0.3:9866", []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 41, MedianMs: 2.3, MADMs: 0.5, UpperLimitMs: 6.9},
	})
	tr.Report(t0.Add(3*time.Second), "10.0.0.2:9866", []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
		{Node: "10.0.0.7:9866", LatencyMs: 12, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	})
	for _, s := range tr.Top(t0.Add(time.Minute), 5) {
		fmt.Println(s.Node)
		for _, r := range s.Reporters {
			fmt.Printf("  reported by %s at %.1f ms (median %.1f ms)\n", r.Node, r.LatencyMs, r.MedianMs)
		}
	}
	// Output:
	// 10.0.0.5:9866
	//   reported by 10.0.0.2:9866 at 35.2 ms (median 2.1 ms)
	//   reported by 10.0.0.3:9866 at 41.0 ms (median 2.3 ms)
	// 10.0.0.7:9866
	//   reported by 10.0.0.2:9866 at 12.0 ms (median 2.1 ms)
}
