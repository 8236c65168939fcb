package diagnosis

import (
	"encoding/json"
	"testing"
)

// TestFindingJSON pins the shape of GET /v1/slownodes (DESIGN.md).
func TestFindingJSON(t *testing.T) {
	f := func(fd Finding, want string) {
		t.Helper()
		b, err := json.Marshal(fd)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("got  %s\nwant %s", b, want)
		}
	}
	f(Finding{Node: "10.0.0.5:9866", Kind: Inbound, Reporters: 40, LatencyMs: 23.5, MedianMs: 2},
		`{"node":"10.0.0.5:9866","kind":"inbound","reporters":40,"latencyMs":23.5,"medianMs":2}`)
	f(Finding{Node: "10.0.0.1:9866", Kind: Link, Peer: "10.0.0.2:9866", Reporters: 2, LatencyMs: 80, MedianMs: 2.2},
		`{"node":"10.0.0.1:9866","kind":"link","peer":"10.0.0.2:9866","reporters":2,"latencyMs":80,"medianMs":2.2}`)
	f(Finding{Node: "10.0.0.9:9866", Kind: Rack, Rack: "/rack4", Reporters: 900, LatencyMs: 30, MedianMs: 2},
		`{"node":"10.0.0.9:9866","kind":"rack","rack":"/rack4","reporters":900,"latencyMs":30,"medianMs":2}`)
}

// TestSortFindings checks the order: slowest first, then by name.
func TestSortFindings(t *testing.T) {
	fs := []Finding{
		{Node: "b:1", Kind: Inbound, LatencyMs: 10},
		{Node: "a:1", Kind: Outbound, LatencyMs: 10},
		{Node: "c:1", Kind: Link, Peer: "d:1", LatencyMs: 50},
		{Node: "a:1", Kind: Inbound, LatencyMs: 10},
	}
	sortFindings(fs)
	want := []Finding{
		{Node: "c:1", Kind: Link, Peer: "d:1", LatencyMs: 50},
		{Node: "a:1", Kind: Inbound, LatencyMs: 10},
		{Node: "a:1", Kind: Outbound, LatencyMs: 10},
		{Node: "b:1", Kind: Inbound, LatencyMs: 10},
	}
	for i := range want {
		if fs[i] != want[i] {
			t.Fatalf("got %+v, want %+v", fs, want)
		}
	}
}
