package disk_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/disk"
)

// A DataNode with five volumes, one of them writing forty times slower
// than the others: Hadoop's test finds it, and the heartbeat carries it
// in slowDisks beside every volume's latencies.
func ExampleRecorder_ReportAt() {
	now := time.Unix(1_700_000_000, 0)
	var vols []disk.Volume
	for i := range 5 {
		vols = append(vols, disk.Volume{Path: fmt.Sprintf("/data/%d", i), Kind: "hdd"})
	}
	r, err := disk.NewRecorder(time.Minute, 3, vols)
	if err != nil {
		panic(err)
	}
	for _, v := range vols {
		write := 2 * time.Millisecond
		if v.Path == "/data/3" {
			write = 80 * time.Millisecond
		}
		r.AddManyAt(now, v.Path, disk.Write, 600*write, 600) // a kernel counter delta
		r.AddAt(now, v.Path, disk.Metadata, 300*time.Microsecond)
	}
	slow, measured := r.ReportAt(now, disk.NewDetector(disk.DefaultMinDisks, disk.DefaultLowThreshold))
	b, _ := json.Marshal(slow)
	fmt.Println(string(b))
	b, _ = json.Marshal(measured[3])
	fmt.Println(string(b))
	// Output:
	// [{"disk":"/data/3","latencies":{"WRITE":80}}]
	// {"disk":"/data/3","kind":"hdd","latencies":{"METADATA":0.3,"WRITE":80},"samples":{"METADATA":1,"WRITE":600}}
}
