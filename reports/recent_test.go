package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseHeartbeatRecentLatencies(t *testing.T) {
	body := `{"node":"h:1","recentLatencies":[{"node":"p:1","latencyMs":2.5,"blocks":3},` +
		`{"node":"p:1","latencyMs":40,"blocks":2,"round":7},{"node":"q:1","latencyMs":0.8,"blocks":1,"round":0}]}`
	got, err := ParseHeartbeat([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []RecentLatency{{"p:1", 2.5, 3, 0}, {"p:1", 40, 2, 7}, {"q:1", 0.8, 1, 0}}
	if !reflect.DeepEqual(got.RecentLatencies, want) {
		t.Fatalf("got %+v, want %+v", got.RecentLatencies, want)
	}
	// What an agent marshals reads back the same.
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseHeartbeat(data)
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("round trip of %s: %+v, %v", data, again, err)
	}
	if strings.Contains(string(data), `"round":0`) {
		t.Errorf("the agent's own blocks carry a round: %s", data)
	}
}

func TestParseHeartbeatRejectsRecentLatencies(t *testing.T) {
	f := func(entries, reason, inMsg string) {
		t.Helper()
		_, err := ParseHeartbeat([]byte(`{"node":"h:1","recentLatencies":[` + entries + `]}`))
		re, ok := errors.AsType[*RejectError](err)
		if !ok || re.Reason != reason || !strings.Contains(re.Message, inMsg) {
			t.Fatalf("%s: got %v, want %s with %q", entries, err, reason, inMsg)
		}
	}
	f(`{"node":"p:1","latencyMs":1}`, ReasonInvalid, "missing field blocks")
	f(`{"node":"p:1","latencyMs":1,"blocks":0}`, ReasonInvalid, "blocks: 0")
	f(`{"node":"p:1","latencyMs":1,"blocks":1001}`, ReasonInvalid, "blocks: 1001")
	f(`{"node":"p:1","latencyMs":1,"blocks":1.5}`, ReasonMalformed, "whole number")
	f(`{"node":"p:1","latencyMs":-1,"blocks":1}`, ReasonInvalid, "negative latency")
	f(`{"node":"p:1","latencyMs":1,"blocks":1,"round":-2}`, ReasonInvalid, "round: negative")
	f(`{"node":"p","latencyMs":1,"blocks":1}`, ReasonInvalid, "not host:port")
	f(`{"node":"p:1","latencyMs":1,"blocks":1,"extra":1}`, ReasonUnknownField, "extra")
	f(`{"node":"p:1","latencyMs":1,"blocks":1},{"node":"p:1","latencyMs":2,"blocks":1}`, ReasonInvalid, "named twice")
	many := strings.Repeat(`{"node":"p:1","latencyMs":1,"blocks":1},`, MaxRecentLatencies) + `{"node":"p:2","latencyMs":1,"blocks":1}`
	f(many, ReasonTooManyPeers, "more than 256")
}

func TestParseHeartbeatReply(t *testing.T) {
	reply, ignored, err := ParseHeartbeatReply([]byte(`{"slow":true,"probe":[{"node":"p:1","blocks":3,"round":9},` +
		`{"node":"bad","blocks":1,"round":9},{"node":"q:1","blocks":99,"round":9},{"node":"r:1","blocks":1,"round":0},` +
		`{"node":"p:1","blocks":1,"round":9}],"newer":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := HeartbeatReply{Slow: true, Probe: []ProbeRequest{{"p:1", 3, 9}}}
	if !reflect.DeepEqual(reply, want) {
		t.Fatalf("got %+v, want %+v", reply, want)
	}
	if len(ignored) != 4 {
		t.Fatalf("ignored %q, want 4 reasons", ignored)
	}
	for _, bad := range []string{``, `{}`, `{"slow":1}`, `{"slow":false} {}`, `{"slow":false,"probe":{}}`, `{"slow":false,"probe":[1]}`} {
		if _, _, err := ParseHeartbeatReply([]byte(bad)); err == nil {
			t.Errorf("ParseHeartbeatReply(%q) = nil error", bad)
		}
	}
	var many []string
	for range MaxProbeRequests + 1 {
		many = append(many, `{"node":"p:1","blocks":1,"round":1}`)
	}
	if _, _, err := ParseHeartbeatReply([]byte(`{"slow":false,"probe":[` + strings.Join(many, ",") + `]}`)); err == nil {
		t.Errorf("%d probe requests accepted", MaxProbeRequests+1)
	}
}

// FuzzParseHeartbeatReply: never a panic; what it keeps is bounded and
// valid, and it keeps no request it also gives a reason for.
func FuzzParseHeartbeatReply(f *testing.F) {
	f.Add([]byte(`{"slow":false}`))
	f.Add([]byte(`{"slow":true,"probe":[{"node":"p:1","blocks":3,"round":1}]}`))
	f.Add([]byte(`{"slow":false,"probe":[{"node":"p:1","blocks":9,"round":1},{"node":"p:1","blocks":1,"round":1}]}`))
	f.Add([]byte(`{"slow":false,"probe":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		reply, ignored, err := ParseHeartbeatReply(data)
		if err != nil {
			if reply.Probe != nil || ignored != nil {
				t.Fatalf("%q: an error with a reply %+v", data, reply)
			}
			return
		}
		if len(reply.Probe)+len(ignored) > MaxProbeRequests {
			t.Fatalf("%q: %d requests kept, %d ignored", data, len(reply.Probe), len(ignored))
		}
		seen := map[string]bool{}
		for _, p := range reply.Probe {
			if p.validate() != nil || seen[p.Node] {
				t.Fatalf("%q: kept %+v", data, p)
			}
			seen[p.Node] = true
		}
	})
}

// BenchmarkParseHeartbeatRecent parses a heartbeat with 20
// recentLatencies, about what an agent of the fast path sends every 3 s,
// and reports its allocations.
func BenchmarkParseHeartbeatRecent(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"node":"10.0.0.1:9866","recentLatencies":[`)
	for i := range 20 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"node":"10.0.%d.%d:9866","latencyMs":%.3f,"blocks":3}`, i/8, i, 0.4+float64(i)/100)
	}
	sb.WriteString(`]}`)
	body := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := ParseHeartbeat(body); err != nil {
			b.Fatal(err)
		}
	}
}
