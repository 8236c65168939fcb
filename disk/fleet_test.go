package disk

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// volume returns a diskLatencies entry: latencyMs for every operation
// (600 samples each), and a load when iops > 0.
func volume(path, kind string, latencyMs, iops, bytesPerSecond, utilization float64) reports.DiskLatency {
	d := reports.DiskLatency{Disk: path, Kind: kind, Latencies: map[string]float64{}, Samples: map[string]int64{}}
	for _, op := range reports.DiskOps() {
		d.Latencies[op], d.Samples[op] = latencyMs, 600
	}
	if iops > 0 {
		d.Load = &reports.DiskLoad{IOPS: iops, BytesPerSecond: bytesPerSecond, Utilization: utilization}
	}
	return d
}

// cluster returns n nodes of three HDD volumes each, every one at 6 ms
// and lightly loaded (10 operations of 64 KB a second, 6 % busy).
func cluster(n int) []NodeDisks {
	var out []NodeDisks
	for i := range n {
		nd := NodeDisks{Node: fmt.Sprintf("10.0.%d.%d:9866", i/200, i%200+1)}
		for v := range 3 {
			nd.Disks = append(nd.Disks, volume(fmt.Sprintf("/data/%d", v), "hdd", 6+float64(v+i%4)/4, 10, 640e3, 0.06))
		}
		out = append(out, nd)
	}
	return out
}

func judge(t *testing.T, nodes []NodeDisks) []string {
	t.Helper()
	f, err := NewFleet(DefaultFleetConfig())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range f.Judge(nodes) {
		got = append(got, fmt.Sprintf("%s %s %s", x.ID(), x.Evidence, x.Op))
		if x.ValueMs <= x.UpperLimitMs || x.MedianMs <= 0 {
			t.Fatalf("finding %+v does not pass its limit", x)
		}
	}
	return got
}

func TestFleetHealthy(t *testing.T) {
	if got := judge(t, cluster(40)); got != nil {
		t.Fatalf("healthy cluster: %v", got)
	}
}

// A node whose every volume is slow, ten times (a failing controller):
// Hadoop's test, which compares a node's volumes with each other, sees
// nothing; the fleet sees all three, by latency and by service time.
func TestFleetSlowController(t *testing.T) {
	nodes := cluster(40)
	for i := range nodes[7].Disks {
		nodes[7].Disks[i] = volume(nodes[7].Disks[i].Disk, "hdd", 65, 10, 640e3, 0.65)
	}
	stats := make([]Stats, 3)
	for i, d := range nodes[7].Disks {
		stats[i].Path = d.Disk
		stats[i].Ops[Read] = OpStats{MeanMs: d.Latencies["READ"], Samples: 600}
	}
	if got := NewDetector(1, DefaultLowThreshold).Detect(stats); len(got) != 0 {
		t.Fatalf("Hadoop's test found %v", got)
	}
	got := judge(t, nodes)
	want := []string{"10.0.0.8:9866:/data/0 service ", "10.0.0.8:9866:/data/1 service ", "10.0.0.8:9866:/data/2 service "}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("slow controller: %v, want %v", got, want)
	}
	// Lightly loaded, the same device is found by its latencies.
	for i := range nodes[7].Disks {
		nodes[7].Disks[i] = volume(nodes[7].Disks[i].Disk, "hdd", 65, 2, 128e3, 0.13)
	}
	got = judge(t, nodes)
	if len(got) != 12 || !strings.HasPrefix(got[0], "10.0.0.8:9866:/data/0 latency METADATA") {
		t.Fatalf("lightly loaded slow controller: %v", got)
	}
}

// A volume busy with healthy work: its latencies swell with the queue,
// its device's time per operation does not. Busy with large transfers,
// the time per operation grows but the time per byte falls.
func TestFleetBusyIsNotSlow(t *testing.T) {
	nodes := cluster(40)
	nodes[3].Disks[1] = volume("/data/1", "hdd", 90, 140, 140*64e3, 0.95)   // many small ones
	nodes[4].Disks[2] = volume("/data/2", "hdd", 300, 100, 100*1.2e6, 0.99) // a dd of 1.2 MB writes
	nodes[5].Disks[0] = volume("/data/0", "hdd", 9, 35, 35*64e3, 0.29)      // busy, but not "busy"
	if got := judge(t, nodes); got != nil {
		t.Fatalf("busy volumes found slow: %v", got)
	}
	// A slow device, whatever its load, is slow per operation and per byte.
	nodes[6].Disks[0] = volume("/data/0", "hdd", 700, 14, 14*64e3, 0.98)
	if got, want := judge(t, nodes), []string{"10.0.0.7:9866:/data/0 service "}; !reflect.DeepEqual(got, want) {
		t.Fatalf("slow and busy: %v, want %v", got, want)
	}
}

// Like is compared with like: NVMe volumes are not the baseline of HDDs,
// and a kind with fewer than MinDisks volumes is not judged.
func TestFleetKinds(t *testing.T) {
	nodes := cluster(40)
	for i := range 4 {
		nodes[i].Disks = append(nodes[i].Disks, volume("/nvme", "nvme", 0.2, 0, 0, 0))
	}
	nodes[0].Disks[3] = volume("/nvme", "nvme", 50, 0, 0, 0)
	if got := judge(t, nodes); got != nil {
		t.Fatalf("a kind of 4 volumes judged: %v", got)
	}
	for i := 4; i < 12; i++ {
		nodes[i].Disks = append(nodes[i].Disks, volume("/nvme", "nvme", 0.2, 0, 0, 0))
	}
	got := judge(t, nodes)
	if len(got) != 3 || !strings.HasPrefix(got[0], "10.0.0.1:9866:/nvme latency") {
		t.Fatalf("slow NVMe among 12: %v", got)
	}
	// The low threshold holds for every kind: 0.2 → 15 ms is not slow.
	nodes[0].Disks[3] = volume("/nvme", "nvme", 15, 0, 0, 0)
	if got := judge(t, nodes); got != nil {
		t.Fatalf("below the low threshold: %v", got)
	}
}

func TestFleetConfigValidate(t *testing.T) {
	f := func(mod func(*FleetConfig), inMsg string) {
		t.Helper()
		c := DefaultFleetConfig()
		mod(&c)
		_, err := NewFleet(c)
		if err == nil || !strings.Contains(err.Error(), inMsg) {
			t.Fatalf("NewFleet(%+v) = %v, want an error with %q", c, err, inMsg)
		}
	}
	f(func(c *FleetConfig) { c.MinDisks = 0 }, FleetMinDisksKey)
	f(func(c *FleetConfig) { c.LowThreshold = -1 }, LowThresholdKey)
	f(func(c *FleetConfig) { c.MinSamples = 0 }, "min samples")
	f(func(c *FleetConfig) { c.BusyUtilization = 0 }, BusyUtilizationKey)
	f(func(c *FleetConfig) { c.BusyUtilization = 1.5 }, BusyUtilizationKey)
}
