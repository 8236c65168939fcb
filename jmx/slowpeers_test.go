package jmx

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The shapes of SlowPeersReport, one per Hadoop generation.
const (
	// Reference: SlowPeerTracker.ReportForJson (Hadoop 2.8 to 3.3).
	slowPeersPlain = `[{"SlowNode":"10.0.0.5:9864","ReportingNodes":["10.0.0.2:9867","10.0.0.3:9867"]}]`
	// Reference: SlowPeerLatencyWithReportingNode after HDFS-16582.
	slowPeersLatency = `[{"SlowNode":"10.0.0.5:9864","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9867","ReportedLatency":35.2}]}]`
	// Reference: SlowPeerLatencyWithReportingNode after HDFS-16595 (trunk).
	slowPeersTrunk = `[{"SlowNode":"dn5.example.com:9864","SlowPeerLatencyWithReportingNodes":[` +
		`{"ReportingNode":"10.0.0.2:9867","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3},` +
		`{"ReportingNode":"10.0.0.3:9867","ReportedLatency":4.1E1,"MedianLatency":null,"MadLatency":"NaN","UpperLimitLatency":"Infinity"}]}]`
)

func TestParseSlowPeersReport(t *testing.T) {
	f := func(s string, want []SlowNode) {
		t.Helper()
		got, err := ParseSlowPeersReport(s)
		if err != nil {
			t.Fatalf("ParseSlowPeersReport(%s): %v", s, err)
		}
		if !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Fatalf("ParseSlowPeersReport(%s) =\n%s\nwant\n%s", s, gj, wj)
		}
	}
	f(`[]`, []SlowNode{})
	f(" [ ] ", []SlowNode{})
	f(slowPeersPlain, []SlowNode{{Node: "10.0.0.5:9864", Reporters: []Reporter{{Node: "10.0.0.2:9867"}, {Node: "10.0.0.3:9867"}}}})
	f(slowPeersLatency, []SlowNode{{Node: "10.0.0.5:9864", Reporters: []Reporter{{Node: "10.0.0.2:9867", LatencyMs: ptr(35.2)}}}})
	f(slowPeersTrunk, []SlowNode{{Node: "dn5.example.com:9864", Reporters: []Reporter{
		{Node: "10.0.0.2:9867", LatencyMs: ptr(35.2), MedianMs: ptr(2.1), MADMs: ptr(0.74), UpperLimitMs: ptr(6.3)},
		{Node: "10.0.0.3:9867", LatencyMs: ptr(41)}}}})
	// What a later Hadoop adds is ignored.
	f(`[{"SlowNode":"[::1]:9864","Rack":"/r1","ReportingNodes":["a:1"]}]`,
		[]SlowNode{{Node: "[::1]:9864", Reporters: []Reporter{{Node: "a:1"}}}})

	bad := func(s, want string) {
		t.Helper()
		got, err := ParseSlowPeersReport(s)
		if err == nil || got != nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "parse SlowPeersReport: ") {
			t.Fatalf("ParseSlowPeersReport(%s) = %v, %v; want an error with %q", s, got, err, want)
		}
	}
	bad(``, "EOF")
	bad(`null`, "not a JSON array")
	bad(`{}`, "cannot unmarshal")
	bad(`[] []`, "data after")
	bad(`[1]`, "cannot unmarshal")
	bad(`[null]`, "entry 0: not an object")
	bad(`[{}]`, "entry 0: no SlowNode")
	bad(`[{"SlowNode":5,"ReportingNodes":["a:1"]}]`, "SlowNode is not a string")
	bad(`[{"SlowNode":"nohost","ReportingNodes":["a:1"]}]`, `SlowNode "nohost" is not host:port`)
	bad(`[{"SlowNode":"a:0","ReportingNodes":["a:1"]}]`, "not host:port")
	bad(`[{"SlowNode":"a b:1","ReportingNodes":["a:1"]}]`, "not host:port")
	bad(`[{"SlowNode":"a:1"}]`, "entry 0 (a:1): no reporting nodes")
	bad(`[{"SlowNode":"a:1","ReportingNodes":[]}]`, "no reporting nodes")
	bad(`[{"SlowNode":"a:1","ReportingNodes":"b:1"}]`, "ReportingNodes is not an array")
	bad(`[{"SlowNode":"a:1","ReportingNodes":[7]}]`, "ReportingNodes[0] is not a string")
	bad(`[{"SlowNode":"a:1","ReportingNodes":["b:1"],"SlowPeerLatencyWithReportingNodes":[]}]`, "both")
	bad(`[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportedLatency":1}]}]`, "reporter 0: no ReportingNode")
	bad(`[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b:1","ReportedLatency":-1}]}]`, "ReportedLatency (b:1): -1 ms is negative")
	bad(`[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b:1","MadLatency":"1.5"}]}]`, `"1.5" is not a number`)
	bad(`[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b:1","MedianLatency":1e999}]}]`, "not a finite number")
	bad(`[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b:1","MedianLatency":[1]}]}]`, "an array, not a number")
}

func TestParseSlowDisksReport(t *testing.T) {
	got, err := ParseSlowDisksReport(`[{"SlowDiskID":"10.0.0.4:9866:/data/1","Latencies":{"READ":12.3,"WRITE":"NaN","METADATA":null,"NEW":1E1}},` +
		`{"SlowDiskID":"10.0.0.5:9866:/data/2","Latencies":null},{"SlowDiskID":"x","Other":1}]`)
	want := []SlowDisk{
		{ID: "10.0.0.4:9866:/data/1", LatenciesMs: map[string]float64{"READ": 12.3, "NEW": 10}},
		{ID: "10.0.0.5:9866:/data/2", LatenciesMs: map[string]float64{}},
		{ID: "x", LatenciesMs: map[string]float64{}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseSlowDisksReport = %+v, %v; want %+v", got, err, want)
	}
	bad := func(s, want string) {
		t.Helper()
		got, err := ParseSlowDisksReport(s)
		if err == nil || got != nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("ParseSlowDisksReport(%s) = %v, %v; want an error with %q", s, got, err, want)
		}
	}
	bad(`null`, "not a JSON array")
	bad(`[{}]`, "no SlowDiskID")
	bad(`[{"SlowDiskID":""}]`, "no SlowDiskID")
	bad(`[{"SlowDiskID":"d","Latencies":[]}]`, "Latencies is not an object")
	bad(`[{"SlowDiskID":"d","Latencies":{"READ":-2}}]`, "d: READ: -2 ms is negative")
	bad(`[{"SlowDiskID":"d","Latencies":{"READ":true}}]`, "a boolean, not a number")
}

// FuzzParseSlowPeersReport: never a panic, never a result with an error,
// and what is accepted holds only host:port ids and figures that are nil
// or finite and ≥ 0.
func FuzzParseSlowPeersReport(f *testing.F) {
	for _, s := range []string{slowPeersPlain, slowPeersLatency, slowPeersTrunk, `[]`, `[{"SlowNode":"a:1","ReportingNodes":["b:1"],"X":{}}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := ParseSlowPeersReport(s)
		if err != nil {
			if nodes != nil {
				t.Fatal("result with an error")
			}
			return
		}
		for _, n := range nodes {
			if n.Node == "" || len(n.Reporters) == 0 {
				t.Fatalf("accepted %+v", n)
			}
			for _, r := range n.Reporters {
				for _, v := range []*float64{r.LatencyMs, r.MedianMs, r.MADMs, r.UpperLimitMs} {
					if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
						t.Fatalf("accepted figure %v", *v)
					}
				}
				if r.Node == "" {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
	})
}

func FuzzParseSlowDisksReport(f *testing.F) {
	f.Add(`[{"SlowDiskID":"10.0.0.4:9866:/data/1","Latencies":{"READ":12.3,"WRITE":"NaN"}}]`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		disks, err := ParseSlowDisksReport(s)
		if err != nil {
			if disks != nil {
				t.Fatal("result with an error")
			}
			return
		}
		for _, d := range disks {
			if d.ID == "" || d.LatenciesMs == nil {
				t.Fatalf("accepted %+v", d)
			}
			for _, v := range d.LatenciesMs {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("accepted latency %v", v)
				}
			}
		}
	})
}
