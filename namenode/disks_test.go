package namenode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

// slowDisksAttr returns the SlowDisksReport of the Server's beans.
func slowDisksAttr(t *testing.T, s *Server) any {
	t.Helper()
	for _, b := range s.Beans(s.now()) {
		if b.Name == jmx.NameNodeStatusBean {
			v, ok := b.Attr(jmx.SlowDisksReport)
			if !ok {
				t.Fatal("no SlowDisksReport")
			}
			return v
		}
	}
	t.Fatal("no NameNodeStatus bean")
	return nil
}

// diskReport is a heartbeat of node whose slow-disk report names each
// volume of disks, slow in READ at 100 ms more for each.
func diskReport(node string, disks ...string) reports.Heartbeat {
	hb := reports.Heartbeat{Node: node, SlowDisks: []reports.SlowDisk{}}
	for i, d := range disks {
		hb.SlowDisks = append(hb.SlowDisks, reports.SlowDisk{Disk: d, Latencies: map[string]float64{"READ": 100 * float64(i+1)}})
	}
	return hb
}

func TestSlowDisksReport(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	// Nothing slow: null on /jmx, as Hadoop's getSlowDiskReportAsJsonString.
	if v := slowDisksAttr(t, s); v != nil {
		t.Fatalf("SlowDisksReport %v, want null", v)
	}
	if w := do(t, s, "GET", SlowDisksPath, ""); w.Code != 200 || w.Body.String() != "[]" {
		t.Fatalf("/slowdisks %d %s", w.Code, w.Body)
	}
	mustHeartbeat(t, s, diskReport("10.0.0.2:9866", "/data/1", "/data/2"))
	hb := diskReport("10.0.0.3:9866", "/data/9")
	hb.SlowDisks[0].Latencies = map[string]float64{"METADATA": 1000.1, "WRITE": 25, "READ": 1e-4}
	mustHeartbeat(t, s, hb)
	const want = `[{"SlowDiskID":"10.0.0.3:9866:/data/9","Latencies":{"METADATA":1000.1,"READ":1.0E-4,"WRITE":25.0}},` +
		`{"SlowDiskID":"10.0.0.2:9866:/data/2","Latencies":{"READ":200.0}},` +
		`{"SlowDiskID":"10.0.0.2:9866:/data/1","Latencies":{"READ":100.0}}]`
	if w := do(t, s, "GET", SlowDisksPath, ""); w.Code != 200 || w.Body.String() != want {
		t.Fatalf("/slowdisks %d\n got %s\nwant %s", w.Code, w.Body, want)
	}
	if v := slowDisksAttr(t, s); v != want {
		t.Fatalf("SlowDisksReport\n got %v\nwant %s", v, want)
	}
	if w := do(t, s, "GET", SlowDisksPath+"?top=1", ""); !strings.HasPrefix(w.Body.String(), `[{"SlowDiskID":"10.0.0.3:9866:/data/9"`) || strings.Count(w.Body.String(), "SlowDiskID") != 1 {
		t.Fatalf("?top=1: %s", w.Body)
	}
	if w := do(t, s, "GET", SlowDisksPath+"?top=0", ""); w.Code != http.StatusBadRequest {
		t.Fatalf("?top=0: %d", w.Code)
	}
	// A heartbeat without slowDisks leaves the report; an empty one clears it.
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.3:9866"})
	mustHeartbeat(t, s, diskReport("10.0.0.2:9866"))
	if w := do(t, s, "GET", SlowDisksPath, ""); strings.Count(w.Body.String(), "SlowDiskID") != 1 {
		t.Fatalf("after the empty report: %s", w.Body)
	}
	// Reports expire after 3 report intervals.
	clock.Advance(s.Config().ReportValidity())
	if v := slowDisksAttr(t, s); v != nil {
		t.Fatalf("expired SlowDisksReport %v", v)
	}
}

// With disk statistics off, the service ignores disks, as a Hadoop
// NameNode without a SlowDiskTracker.
func TestSlowDisksOff(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.Disks.SamplingPercentage = 0 })
	mustHeartbeat(t, s, diskReport("10.0.0.2:9866", "/data/1"))
	if v := slowDisksAttr(t, s); v != nil {
		t.Fatalf("SlowDisksReport %v, want null", v)
	}
	if w := do(t, s, "GET", SlowDisksPath, ""); w.Body.String() != "[]" || s.disks.tracker.Entries() != 0 {
		t.Fatalf("/slowdisks %s, %d entries", w.Body, s.disks.tracker.Entries())
	}
}

// A heartbeat with a bad slow-disk report gets 400 and changes nothing;
// one past the bound of volumes, 429.
func TestDiskHeartbeatRefused(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.Disks.MaxEntries = 3 })
	before := snapshot(s, clock.Now())
	for _, body := range []string{
		`{"node":"10.0.0.2:9866","slowPeers":[],"slowDisks":[{"disk":"/d","latencies":{"READ":-1}}]}`,
		`{"node":"10.0.0.2:9866","slowDisks":[{"disk":"/d","latencies":{"read":1}}]}`,
		`{"node":"10.0.0.2:9866","diskLatencies":[{"disk":"/d","latencies":{"READ":1},"samples":{}}]}`,
		`{"node":"10.0.0.2:9866","diskLatencies":[{"disk":"/d","latencies":{},"samples":{},"load":{"iops":1,"bytesPerSecond":1,"utilization":2}}]}`,
	} {
		if w := do(t, s, "POST", HeartbeatPath, body); w.Code != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
	}
	mustHeartbeat(t, s, diskReport("10.0.0.2:9866", "/a", "/b"))
	before = snapshot(s, clock.Now())
	body, _ := json.Marshal(diskReport("10.0.0.3:9866", "/a", "/b"))
	w := do(t, s, "POST", HeartbeatPath, string(body))
	if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), MaxDiskEntriesKey) {
		t.Fatalf("past the bound: %d %s", w.Code, w.Body)
	}
	if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) || s.disks.tracker.Entries() != 2 {
		t.Fatalf("a refused heartbeat changed the state: %+v → %+v", before, after)
	}
	if _, m := scrape(t, s); m[`slowpeer_heartbeats_rejected_total{reason="limit_disk_entries"}`] != 1 {
		t.Fatal("the refusal is not counted by its reason")
	}
}

// measured is a heartbeat of node measuring its volumes at latencyMs
// each (600 samples), lightly loaded.
func measured(node string, latencyMs ...float64) reports.Heartbeat {
	hb := reports.Heartbeat{Node: node}
	for i, ms := range latencyMs {
		d := reports.DiskLatency{Disk: fmt.Sprintf("/data/%d", i), Kind: "hdd", Latencies: map[string]float64{}, Samples: map[string]int64{},
			Load: &reports.DiskLoad{IOPS: 10, BytesPerSecond: 640e3, Utilization: 10 * ms / 1000}}
		for _, op := range reports.DiskOps() {
			d.Latencies[op], d.Samples[op] = ms, 600
		}
		hb.DiskLatencies = append(hb.DiskLatencies, d)
	}
	return hb
}

func TestDiskFleetSlowSet(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	for i := range 20 {
		mustHeartbeat(t, s, measured(fmt.Sprintf("10.0.0.%d:9866", i+1), 6, 6.5, 7))
	}
	// One slow volume on .3, every volume slow on .4 (a controller).
	mustHeartbeat(t, s, measured("10.0.0.3:9866", 6, 70, 7))
	mustHeartbeat(t, s, measured("10.0.0.4:9866", 65, 70, 80))
	// A node that sends Hadoop's report only (an agent beside a Hadoop
	// DataNode): its slow disks count as found.
	mustHeartbeat(t, s, diskReport("10.0.1.1:9866", "/grid/0"))
	s.DiagnoseDisks(clock.Now())

	want := []string{"10.0.0.3:9866:/data/1", "10.0.0.4:9866:/data/0", "10.0.0.4:9866:/data/1", "10.0.0.4:9866:/data/2", "10.0.1.1:9866:/grid/0"}
	if got := s.SlowDisks(); !reflect.DeepEqual(got, want) {
		t.Fatalf("slow disks %v, want %v", got, want)
	}
	var findings []DiskFinding
	if w := do(t, s, "GET", DiskFindingsPath, ""); json.Unmarshal(w.Body.Bytes(), &findings) != nil || len(findings) != 4 ||
		findings[0].Node != "10.0.0.3:9866" || findings[0].Evidence != "service" || !findings[0].InSlowSet || findings[0].Op != nil {
		t.Fatalf("/v1/slowdisks: %s", w.Body)
	}
	// One slow disk alone does not make its host slow for the picker; a
	// node whose every disk is slow does.
	if got := s.SlowHosts(clock.Now()); !reflect.DeepEqual(got, []string{"10.0.0.4"}) {
		t.Fatalf("slow hosts %v", got)
	}
	// The slow set of disks leaves once nothing finds them.
	mustHeartbeat(t, s, measured("10.0.0.4:9866", 6, 6, 6))
	mustHeartbeat(t, s, measured("10.0.0.3:9866", 6, 6, 6))
	mustHeartbeat(t, s, diskReport("10.0.1.1:9866"))
	s.DiagnoseDisks(clock.Now())
	if got := s.SlowDisks(); len(got) != 0 || len(s.SlowHosts(clock.Now())) != 0 {
		t.Fatalf("after recovery: %v, %v", got, s.SlowHosts(clock.Now()))
	}
}

func TestSlowDiskHostShare(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.Disks.HostShare = 0.3 })
	for i := range 20 {
		mustHeartbeat(t, s, measured(fmt.Sprintf("10.0.0.%d:9866", i+1), 6, 6.5, 7))
	}
	mustHeartbeat(t, s, measured("10.0.0.3:9866", 6, 70, 7))
	s.DiagnoseDisks(clock.Now())
	if got := s.SlowHosts(clock.Now()); !reflect.DeepEqual(got, []string{"10.0.0.3"}) {
		t.Fatalf("slow hosts %v", got)
	}
}
