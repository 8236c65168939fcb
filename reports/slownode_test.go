package reports

import (
	"encoding/json"
	"testing"
)

// Reference: SlowPeerJsonReport and SlowPeerLatencyWithReportingNode
// (Hadoop trunk): the field names tooling reads from /slowpeers and from the
// SlowPeersReport attribute of NameNodeStatus.
func TestSlowNodeJSON(t *testing.T) {
	s := []SlowNode{{Node: "10.0.0.5:9866", Reporters: []Reporter{
		{Node: "10.0.0.2:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9866","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3}]}]`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestMaxLatencyMs(t *testing.T) {
	f := func(s SlowNode, want float64) {
		t.Helper()
		if got := s.MaxLatencyMs(); got != want {
			t.Fatalf("MaxLatencyMs = %v, want %v", got, want)
		}
	}
	f(SlowNode{}, 0)
	f(SlowNode{Reporters: []Reporter{{LatencyMs: 3}, {LatencyMs: 9.5}, {LatencyMs: 1}}}, 9.5)
}
