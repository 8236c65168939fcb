package namenode

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenServer is a Server whose /jmx depends on nothing outside the test:
// its clock, host name, version, leadership and Go runtime are fixed.
func goldenServer(t *testing.T) (*Server, *fakeClock) {
	t.Helper()
	s, clock, _ := newTestServer(t, func(c *Config) {
		c.Listen = "nn1.example.com:9871"
		c.Hostname = "nn1.example.com"
		c.SoftwareVersion = "v1.2.3"
		c.State = func() string { return "active" }
	})
	s.readRuntime = func() jmx.Runtime {
		return jmx.Runtime{HeapUsedBytes: 12_345_678, HeapCommittedBytes: 25 << 20, GCCycles: 27,
			GCPause: 412*time.Millisecond + 700*time.Microsecond, Running: 2, Runnable: 1, NotInGo: 3, Waiting: 40}
	}
	return s, clock
}

// golden compares got with testdata/golden/file, or rewrites the file
// under -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./namenode -run Golden -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s differs:\n got %s\nwant %s", path, got, want)
	}
}

// The values that show Jackson's doubles: 25.0 (a whole number keeps its
// fraction), 1.23456785E7 (10^7 and above in E notation), 1.0E-4 (below
// 10^-3), and a reporter whose name holds < > &, which Jackson does not
// escape.
//
// Reference: SlowPeerTracker.getJson (new ObjectMapper().writer()),
// Double.toString.
func TestJMXSlowPeersReportJackson(t *testing.T) {
	s, _ := goldenServer(t)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "a<b>&c:9866", SlowPeers: []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 12345678.5, MedianMs: 25, MADMs: 0.0001, UpperLimitMs: 75}}})
	beans := getBeans(t, s, "?qry="+jmx.NameNodeStatusBean)
	const want = `[{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[` +
		`{"ReportingNode":"a<b>&c:9866","ReportedLatency":1.23456785E7,"MedianLatency":25.0,"MadLatency":1.0E-4,"UpperLimitLatency":75.0}]}]`
	if got := attr(t, beans, jmx.NameNodeStatusBean, jmx.SlowPeersReport); got != want {
		t.Fatalf("SlowPeersReport\n got %s\nwant %s", got, want)
	}
	// slowpeer report reads it back exactly.
	nodes, err := jmx.ParseSlowPeersReport(want)
	if err != nil || len(nodes) != 1 || *nodes[0].Reporters[0].LatencyMs != 12345678.5 || *nodes[0].Reporters[0].MADMs != 0.0001 {
		t.Fatalf("ParseSlowPeersReport = %+v, %v", nodes, err)
	}
	w := do(t, s, "GET", JMXPath+"?get="+jmx.NameNodeStatusBean+"::"+jmx.SlowPeersReport, "")
	golden(t, "get-slowpeersreport.json", w.Body.Bytes())
}

func TestJMXGolden(t *testing.T) {
	s, clock := goldenServer(t)
	golden(t, "jmx-empty.json", do(t, s, "GET", JMXPath, "").Body.Bytes())

	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.9:9866", HTTPAddress: "10.0.0.9:9864"})
	clock.Advance(s.Config().DeadAfter() + time.Second)
	for _, hb := range []reports.Heartbeat{
		{Node: "10.0.0.2:9866", HTTPAddress: "10.0.0.2:9864", SlowPeers: []reports.SlowPeer{
			{Node: "10.0.0.5:9866", LatencyMs: 48.25, MedianMs: 1.93, MADMs: 0.31, UpperLimitMs: 5.79}}},
		{Node: "10.0.0.7:9866", SlowPeers: []reports.SlowPeer{
			{Node: "10.0.0.5:9866", LatencyMs: 51.6, MedianMs: 2, MADMs: 0.27, UpperLimitMs: 6}}},
		{Node: "10.0.0.5:9866", HTTPAddress: "dn5.example.com:9864"},
	} {
		mustHeartbeat(t, s, hb)
		clock.Advance(20 * time.Second)
	}
	// Now 10.0.0.2 is 60s silent and 10.0.0.7 40s: both stale.
	golden(t, "jmx.json", do(t, s, "GET", JMXPath, "").Body.Bytes())
}
