package disk_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
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

// Twelve nodes of two HDD volumes each; every volume of one node is ten
// times slower than its peers (a failing controller). Hadoop's test,
// comparing a node's two volumes with each other, could never find them;
// the fleet view compares each with the like volumes of every node.
func ExampleFleet_Judge() {
	var nodes []disk.NodeDisks
	for i := range 12 {
		ms := 6.0
		if i == 4 {
			ms = 60
		}
		n := disk.NodeDisks{Node: fmt.Sprintf("10.0.0.%d:9866", i+1)}
		for _, path := range []string{"/data/0", "/data/1"} {
			n.Disks = append(n.Disks, reports.DiskLatency{Disk: path, Kind: "hdd",
				Latencies: map[string]float64{"READ": ms}, Samples: map[string]int64{"READ": 600}})
		}
		nodes = append(nodes, n)
	}
	f, err := disk.NewFleet(disk.DefaultFleetConfig())
	if err != nil {
		panic(err)
	}
	for _, x := range f.Judge(nodes) {
		fmt.Printf("%s: %s %s %.0f ms, like volumes %.0f ms\n", x.ID(), x.Op, x.Evidence, x.ValueMs, x.MedianMs)
	}
	// Output:
	// 10.0.0.5:9866:/data/0: READ latency 60 ms, like volumes 6 ms
	// 10.0.0.5:9866:/data/1: READ latency 60 ms, like volumes 6 ms
}
