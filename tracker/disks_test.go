package tracker

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

// slowDisk is a slow-disk entry of a report, as Hadoop's tests write
// them: ImmutableMap.of(DiskOp.READ, 1.3).
func slowDisk(disk string, ops ...any) reports.SlowDisk {
	m := map[string]float64{}
	for i := 0; i < len(ops); i += 2 {
		m[ops[i].(string)] = ops[i+1].(float64)
	}
	return reports.SlowDisk{Disk: disk, Latencies: m}
}

// The vectors of Hadoop's TestSlowDiskTracker, with its 1 s report
// interval (validity 3 s). A DataNode sends all its slow disks in one
// report, so the disks of one node come in one Report here.
func TestDisksHadoopVectors(t *testing.T) {
	const validity = 3 * time.Second
	t0 := time.Unix(1_700_000_000, 0)
	report := func(d *Disks, now time.Time, node string, disks ...reports.SlowDisk) {
		t.Helper()
		if err := d.Report(now, node, disks, nil); err != nil {
			t.Fatal(err)
		}
	}
	latencies := func(got []reports.ReportedDisk) map[string]map[string]float64 {
		m := map[string]map[string]float64{}
		for _, g := range got {
			m[g.ID] = g.Latencies
		}
		return m
	}
	type want = map[string]map[string]float64

	// Reference: TestSlowDiskTracker.testEmptyReports.
	d := NewDisks(validity, 0)
	if got := d.Top(t0, 5); len(got) != 0 || got == nil {
		t.Fatalf("empty tracker: %v", got)
	}

	// Reference: testReportsAreRetrieved.
	report(d, t0, "dn1", slowDisk("disk1", "METADATA", 1.1, "READ", 1.8), slowDisk("disk2", "READ", 1.3))
	report(d, t0, "dn2", slowDisk("disk2", "READ", 1.1))
	if got, w := latencies(d.Top(t0, 5)), (want{"dn1:disk1": {"METADATA": 1.1, "READ": 1.8},
		"dn1:disk2": {"READ": 1.3}, "dn2:disk2": {"READ": 1.1}}); !reflect.DeepEqual(got, w) {
		t.Fatalf("retrieved %v, want %v", got, w)
	}

	// Reference: testAllReportsAreExpired: valid 1 ms later, gone after
	// the validity.
	if got := d.Top(t0.Add(time.Millisecond), 5); len(got) != 3 {
		t.Fatalf("1 ms later: %v", got)
	}
	if got := d.Top(t0.Add(validity-1), 5); len(got) != 3 {
		t.Fatalf("just inside the validity: %v", got)
	}
	if got := d.Top(t0.Add(validity), 5); len(got) != 0 {
		t.Fatalf("after the validity: %v", got)
	}

	// Reference: testSomeReportsAreExpired.
	d = NewDisks(validity, 0)
	report(d, t0, "dn1", slowDisk("disk1", "METADATA", 1.1, "READ", 1.8), slowDisk("disk2", "READ", 1.3))
	report(d, t0.Add(validity), "dn2", slowDisk("disk2", "WRITE", 1.1))
	if got, w := latencies(d.Top(t0.Add(validity), 5)), (want{"dn2:disk2": {"WRITE": 1.1}}); !reflect.DeepEqual(got, w) {
		t.Fatalf("some expired: %v, want %v", got, w)
	}

	// Reference: testReplacement.
	d = NewDisks(validity, 0)
	report(d, t0, "dn1", slowDisk("disk1", "METADATA", 1.1, "READ", 1.8))
	report(d, t0.Add(validity), "dn1", slowDisk("disk1", "READ", 1.4))
	if got, w := latencies(d.Top(t0.Add(validity), 5)), (want{"dn1:disk1": {"READ": 1.4}}); !reflect.DeepEqual(got, w) {
		t.Fatalf("replaced: %v, want %v", got, w)
	}

	// Reference: testGetJsonSizeIsLimited: the top 5 by their highest
	// latency.
	d = NewDisks(validity, 0)
	report(d, t0, "dn1", slowDisk("disk1", "READ", 1.1), slowDisk("disk2", "READ", 1.2), slowDisk("disk3", "READ", 1.3))
	report(d, t0, "dn2", slowDisk("disk1", "READ", 1.4), slowDisk("disk2", "READ", 1.5))
	report(d, t0, "dn3", slowDisk("disk1", "WRITE", 1.6), slowDisk("disk2", "READ", 1.7), slowDisk("disk3", "READ", 1.2))
	var ids []string
	for _, r := range d.Top(t0, 5) {
		ids = append(ids, r.ID)
	}
	if w := []string{"dn3:disk2", "dn3:disk1", "dn2:disk2", "dn2:disk1", "dn1:disk3"}; !reflect.DeepEqual(ids, w) {
		t.Fatalf("top 5: %v, want %v", ids, w)
	}

	// Reference: testEmptyReport: nothing valid, and so (namenode) a null
	// SlowDisksReport.
	d = NewDisks(validity, 0)
	report(d, t0, "dn1", slowDisk("disk1", "READ", 1.1))
	if got := d.Top(t0.Add(validity), 5); len(got) != 0 {
		t.Fatalf("expired: %v", got)
	}
	if n := d.Expire(t0.Add(validity)); n != 1 || d.Entries() != 0 {
		t.Fatalf("Expire deleted %d, holds %d", n, d.Entries())
	}
}

// The report's JSON, byte for byte as Hadoop's Jackson writes it: the
// example of HDFS-15666, and a disk reported with no latencies
// (TestNameNodeMXBean.testNameNodeMXBeanSlowDisksEnabled).
func TestDisksJackson(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	d := NewDisks(time.Minute, 0)
	for _, r := range []struct {
		node  string
		disks []reports.SlowDisk
	}{
		{"dn3", []reports.SlowDisk{slowDisk("disk1", "WRITE", 1000.1)}},
		{"dn1", []reports.SlowDisk{slowDisk("disk1", "READ", 1000.8, "METADATA", 1000.1)}},
		{"127.0.0.1:41535", []reports.SlowDisk{slowDisk("test/data1/slowVolume")}},
	} {
		if err := d.Report(t0, r.node, r.disks, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := jmx.MarshalJackson(d.Top(t0, 5))
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"SlowDiskID":"dn1:disk1","Latencies":{"METADATA":1000.1,"READ":1000.8}},` +
		`{"SlowDiskID":"dn3:disk1","Latencies":{"WRITE":1000.1}},` +
		`{"SlowDiskID":"127.0.0.1:41535:test/data1/slowVolume","Latencies":{}}]`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// What the JSON says reads back as a Hadoop NameNode's report.
	back, err := jmx.ParseSlowDisksReport(string(got))
	if err != nil || len(back) != 3 || back[0].LatenciesMs["READ"] != 1000.8 {
		t.Fatalf("read back %+v, %v", back, err)
	}
}

func TestDisksReplaceMeasuredAndLimit(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	d := NewDisks(time.Minute, 4)
	m := func(disks ...string) []reports.DiskLatency {
		out := []reports.DiskLatency{}
		for _, x := range disks {
			out = append(out, reports.DiskLatency{Disk: x, Latencies: map[string]float64{"READ": 1}, Samples: map[string]int64{"READ": 9}})
		}
		return out
	}
	if err := d.Report(t0, "a:1", []reports.SlowDisk{slowDisk("/1", "READ", 40.0)}, m("/1", "/2")); err != nil {
		t.Fatal(err)
	}
	// Without a slow-disk report, the node's earlier one stands.
	if err := d.Report(t0.Add(time.Second), "a:1", nil, m("/1")); err != nil {
		t.Fatal(err)
	}
	if got := d.Slow(t0.Add(time.Second)); len(got) != 1 || d.Entries() != 2 {
		t.Fatalf("slow %v, %d entries", got, d.Entries())
	}
	// Past the bound: refused whole, nothing changes.
	err := d.Report(t0, "b:1", []reports.SlowDisk{slowDisk("/1", "READ", 50.0)}, m("/1", "/2"))
	if le, ok := errors.AsType[*LimitError](err); !ok || le.Limit != LimitDiskEntries || le.Max != 4 {
		t.Fatalf("over the bound: %v", err)
	}
	if got := d.Measured(t0.Add(time.Second)); len(got) != 1 || got[0].Node != "a:1" || len(got[0].Disks) != 1 {
		t.Fatalf("measured %+v", got)
	}
	// An empty report clears; the measured volumes expire on their own.
	if err := d.Report(t0.Add(2*time.Second), "a:1", []reports.SlowDisk{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := d.Slow(t0.Add(2 * time.Second)); len(got) != 0 || d.Entries() != 1 {
		t.Fatalf("cleared: %v, %d entries", got, d.Entries())
	}
	if got := d.Measured(t0.Add(time.Second + time.Minute)); len(got) != 0 {
		t.Fatalf("expired measured: %v", got)
	}
	if n := d.Expire(t0.Add(time.Second + time.Minute)); n != 1 || d.Entries() != 0 {
		t.Fatalf("Expire: %d, %d held", n, d.Entries())
	}
}
