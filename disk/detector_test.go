package disk

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// metadataOnly returns the stats of a volume whose only latency is its
// metadata mean, as the mocked volumes of Hadoop's test.
func metadataOnly(path, storageType string, metadataMs float64) Stats {
	s := Stats{Volume: Volume{Path: path, StorageType: storageType}}
	s.Ops[Metadata] = OpStats{MeanMs: metadataMs, Samples: 1}
	return s
}

// Reference: TestDataNodeOutlierDetectionViaMetrics.testStorageTypeAwareSlowDiskDetection
// (Hadoop trunk): each StorageType is a group of its own, and a group of
// fewer than dfs.datanode.min.outlier.detection.disks is not tested.
func TestDetectHadoopStorageTypeGroups(t *testing.T) {
	d := NewDetector(DefaultMinDisks, DefaultLowThreshold)
	f := func(stats []Stats, want ...string) {
		t.Helper()
		got := d.Detect(stats)
		var paths []string
		for _, s := range got {
			paths = append(paths, s.Disk)
			if len(s.Latencies) != 1 || s.Latencies["METADATA"] == 0 {
				t.Fatalf("%s: latencies %v, want only METADATA", s.Disk, s.Latencies)
			}
		}
		if !reflect.DeepEqual(paths, want) {
			t.Fatalf("slow disks %v, want %v", paths, want)
		}
	}
	// Scenario 1: 1 SSD + 10 HDDs.
	var one []Stats
	one = append(one, metadataOnly("/ssd0/", "SSD", 5000))
	for i := range 8 {
		one = append(one, metadataOnly("/hdd"+string(rune('0'+i))+"/", "DISK", 0.5))
	}
	one = append(one, metadataOnly("/hdd8/", "DISK", 5000), metadataOnly("/hdd9/", "DISK", 6000))
	f(one, "/hdd8/", "/hdd9/")

	// Scenario 2: 6 SSDs + 10 HDDs.
	var two []Stats
	for i := range 4 {
		two = append(two, metadataOnly("/ssd"+string(rune('0'+i))+"/", "SSD", float64(i)+1))
	}
	two = append(two, metadataOnly("/ssd4/", "SSD", 5000), metadataOnly("/ssd5/", "SSD", 6000))
	two = append(two, one[1:]...)
	f(two, "/hdd8/", "/hdd9/", "/ssd4/", "/ssd5/")

	// A volume without a StorageType is DISK, in any case of letters.
	three := append([]Stats(nil), one[1:]...)
	three[0].StorageType, three[1].StorageType, three[2].StorageType = "", "disk", "Disk"
	f(three, "/hdd8/", "/hdd9/")
}

// Reference: TestDataNodeOutlierDetectionViaMetrics.testOutlierIsDetected
// and testWithNoOutliers, for disks: fast volumes at 0–4 ms, and one at
// 20 s, through the Recorder.
func TestRecorderHadoopOutlierIsDetected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Unix(1_700_000_000, 0)
	for _, withSlow := range []bool{true, false} {
		vols := []Volume{{Path: "/data/0"}, {Path: "/data/1"}, {Path: "/data/2"}, {Path: "/data/3"}, {Path: "/data/4"}, {Path: "/slow"}}
		r, err := NewRecorder(time.Minute, 3, vols)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vols[:5] {
			for range 2000 {
				for _, op := range Ops() {
					r.AddAt(now, v.Path, op, time.Duration(rng.IntN(5))*time.Millisecond)
				}
			}
		}
		for range 2000 {
			d := time.Duration(rng.IntN(5)) * time.Millisecond
			if withSlow {
				d = 20 * time.Second
			}
			r.AddAt(now, "/slow", Write, d)
			r.AddAt(now, "/slow", Read, time.Duration(rng.IntN(5))*time.Millisecond)
		}
		slow, measured := r.ReportAt(now.Add(time.Second), NewDetector(DefaultMinDisks, DefaultLowThreshold))
		want := []reports.SlowDisk{}
		if withSlow {
			want = []reports.SlowDisk{{Disk: "/slow", Latencies: map[string]float64{"WRITE": 20000}}}
		}
		if !reflect.DeepEqual(slow, want) {
			t.Fatalf("with slow %v: slow disks %v, want %v", withSlow, slow, want)
		}
		if len(measured) != 6 || measured[5].Samples["WRITE"] != 2000 || measured[5].Samples["METADATA"] != 0 {
			t.Fatalf("with slow %v: measured %+v", withSlow, measured)
		}
		if _, ok := measured[5].Latencies["METADATA"]; ok {
			t.Fatalf("an operation without samples has a latency: %+v", measured[5])
		}
	}
}

func TestDetectLimits(t *testing.T) {
	f := func(d *Detector, ms []float64, samples []int64, want ...string) {
		t.Helper()
		var stats []Stats
		for i, v := range ms {
			s := Stats{Volume: Volume{Path: "/d" + string(rune('a'+i))}}
			s.Ops[Read] = OpStats{MeanMs: v, Samples: samples[i]}
			stats = append(stats, s)
		}
		var got []string
		for _, s := range d.Detect(stats) {
			got = append(got, s.Disk)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Detect(%v, %v) = %v, want %v", ms, samples, got, want)
		}
	}
	hadoop := NewDetector(DefaultMinDisks, DefaultLowThreshold)
	n := []int64{9, 9, 9, 9, 9}
	// Four volumes: never tested, however slow one is.
	f(hadoop, []float64{2, 2, 2, 900}, n[:4])
	f(hadoop, []float64{2, 2, 2, 2, 900}, n, "/de")
	// The low threshold: 20 ms is not slow, 20.5 ms is.
	f(hadoop, []float64{1, 1, 1, 1, 20}, n)
	f(hadoop, []float64{1, 1, 1, 1, 20.5}, n, "/de")
	// 3 × median binds on a tightly clustered node.
	f(hadoop, []float64{10, 10, 10, 10, 30}, n)
	f(hadoop, []float64{10, 10, 10, 10, 30.01}, n, "/de")
	// Idle volumes count at 0 ms with MinSamples 0 (Hadoop), not with more.
	f(hadoop, []float64{0, 0, 0, 8, 25}, []int64{0, 0, 0, 9, 9}, "/de")
	strict := &Detector{MinDisks: DefaultMinDisks, LowThreshold: DefaultLowThreshold, MinSamples: 1}
	f(strict, []float64{0, 0, 0, 8, 25}, []int64{0, 0, 0, 9, 9})
}

func TestOps(t *testing.T) {
	for _, op := range Ops() {
		got, ok := ParseOp(op.String())
		if !ok || got != op {
			t.Fatalf("ParseOp(%q) = %v, %v", op, got, ok)
		}
	}
	if got := []string{Metadata.String(), Read.String(), Write.String()}; !reflect.DeepEqual(got, reports.DiskOps()) {
		t.Fatalf("ops %v, want reports.DiskOps %v", got, reports.DiskOps())
	}
	if _, ok := ParseOp("read"); ok {
		t.Fatal(`ParseOp("read") succeeded`)
	}
	if s := Op(7).String(); s != "Op(7)" {
		t.Fatalf("Op(7) = %q", s)
	}
}

// A volume busy with healthy work (a dd beside the DataNode) looks slow
// to Hadoop's test, its latencies swollen by the queue; with
// BusyUtilization the node's own devices' time per operation and per
// byte clear it. A device slow and busy at once stays slow.
func TestDetectBusyUtilization(t *testing.T) {
	vol := func(path string, ms, iops, bytesPerSecond, util float64) Stats {
		s := Stats{Volume: Volume{Path: path}, Load: &reports.DiskLoad{IOPS: iops, BytesPerSecond: bytesPerSecond, Utilization: util}}
		for _, op := range Ops() {
			s.Ops[op] = OpStats{MeanMs: ms, Samples: 600}
		}
		return s
	}
	stats := []Stats{
		vol("/a", 6, 10, 640e3, 0.06), vol("/b", 6.5, 12, 768e3, 0.08), vol("/c", 7, 9, 576e3, 0.06),
		vol("/d", 6, 11, 704e3, 0.07), vol("/e", 6, 10, 640e3, 0.06),
		vol("/dd", 240, 85, 85*1.2e6, 0.99),
	}
	hadoop := NewDetector(DefaultMinDisks, DefaultLowThreshold)
	if got := hadoop.Detect(stats); len(got) != 1 || got[0].Disk != "/dd" {
		t.Fatalf("Hadoop's test: %v", got)
	}
	aware := NewDetector(DefaultMinDisks, DefaultLowThreshold)
	aware.BusyUtilization = DefaultBusyUtilization
	if got := aware.Detect(stats); len(got) != 0 {
		t.Fatalf("busy volume reported: %v", got)
	}
	stats[5] = vol("/dd", 900, 14, 14*64e3, 0.98)
	if got := aware.Detect(stats); len(got) != 1 || got[0].Disk != "/dd" {
		t.Fatalf("slow and busy volume: %v", got)
	}
}
