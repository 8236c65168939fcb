package reports

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestHeartbeatJSON(t *testing.T) {
	f := func(hb Heartbeat, want string) {
		t.Helper()
		b, err := json.Marshal(hb)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if string(b) != want {
			t.Fatalf("marshal:\n got %s\nwant %s", b, want)
		}
		var back Heartbeat
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		if back.HasReport() != hb.HasReport() || len(back.SlowPeers) != len(hb.SlowPeers) {
			t.Fatalf("round trip: got %+v, want %+v", back, hb)
		}
	}
	// No report: the field is absent, and earlier reports stand.
	f(Heartbeat{Node: "10.0.0.2:9866"}, `{"node":"10.0.0.2:9866"}`)
	// An empty report is present: it clears what the sender said before.
	f(Heartbeat{Node: "10.0.0.2:9866", SlowPeers: []SlowPeer{}}, `{"node":"10.0.0.2:9866","slowPeers":[]}`)
	// The shape of DESIGN.md.
	f(Heartbeat{Node: "10.0.0.2:9866", SlowPeers: []SlowPeer{{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3}}},
		`{"node":"10.0.0.2:9866","slowPeers":[{"node":"10.0.0.5:9866","latencyMs":35.2,"medianMs":2.1,"madMs":0.74,"upperLimitMs":6.3}]}`)
}

func TestHeartbeatDecodePresence(t *testing.T) {
	f := func(body string, want bool) {
		t.Helper()
		var hb Heartbeat
		if err := json.Unmarshal([]byte(body), &hb); err != nil {
			t.Fatalf("unmarshal %s: %v", body, err)
		}
		if hb.HasReport() != want {
			t.Fatalf("%s: HasReport = %v, want %v", body, hb.HasReport(), want)
		}
	}
	f(`{"node":"a:1"}`, false)
	f(`{"node":"a:1","slowPeers":null}`, false)
	f(`{"node":"a:1","slowPeers":[]}`, true)
	f(`{"node":"a:1","slowPeers":[{"node":"b:1","latencyMs":1}]}`, true)
}

func TestValidate(t *testing.T) {
	peer := func(node string, ms float64) SlowPeer {
		return SlowPeer{Node: node, LatencyMs: ms, MedianMs: 1, MADMs: 0.5, UpperLimitMs: 5}
	}
	f := func(hb Heartbeat, wantErr string) {
		t.Helper()
		err := hb.Validate()
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("Validate(%+v) = %v, want nil", hb, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("Validate(%+v) = %v, want an error with %q", hb, err, wantErr)
		}
	}
	f(Heartbeat{Node: "10.0.0.2:9866"}, "")
	f(Heartbeat{Node: "[::1]:9866", SlowPeers: []SlowPeer{peer("dn5.example.com:9866", 30)}}, "")
	f(Heartbeat{Node: ""}, "missing node id")
	f(Heartbeat{Node: "10.0.0.2"}, "not host:port")
	f(Heartbeat{Node: ":9866"}, "bad host")
	f(Heartbeat{Node: "a b:9866"}, "bad host")
	f(Heartbeat{Node: "h:0"}, "bad port")
	f(Heartbeat{Node: "h:65536"}, "bad port")
	f(Heartbeat{Node: "h:08"}, "bad port")
	f(Heartbeat{Node: "h:-1"}, "bad port")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{peer("x", 1)}}, "slowPeers[0]: node")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{peer("x:1", math.NaN())}}, "latencyMs: not a finite number")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{peer("x:1", math.Inf(1))}}, "latencyMs: not a finite number")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{peer("x:1", -1)}}, "latencyMs: negative")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{{Node: "x:1", UpperLimitMs: -2}}}, "upperLimitMs: negative")
	f(Heartbeat{Node: "h:1", SlowPeers: []SlowPeer{peer("x:1", 1), peer("x:1", 2)}}, "named twice")
	many := make([]SlowPeer, MaxSlowPeers+1)
	f(Heartbeat{Node: "h:1", SlowPeers: many}, "at most 10000")
}

func TestHost(t *testing.T) {
	f := func(id, want string) {
		t.Helper()
		if got := Host(id); got != want {
			t.Fatalf("Host(%q) = %q, want %q", id, got, want)
		}
	}
	f("10.0.0.2:9866", "10.0.0.2")
	f("[::1]:9866", "::1")
	f("dn1.example.com:9866", "dn1.example.com")
	f("nohost", "nohost")
}

func FuzzHeartbeat(f *testing.F) {
	f.Add(`{"node":"10.0.0.2:9866","slowPeers":[{"node":"10.0.0.5:9866","latencyMs":35.2,"medianMs":2.1,"madMs":0.74,"upperLimitMs":6.3}]}`)
	f.Add(`{"node":"a:1","slowPeers":[]}`)
	f.Add(`{"node":"[::1]:0"}`)
	f.Add(`{"node":"10.0.0.2:9866","httpAddress":"10.0.0.2:9864"}`)
	f.Add(`{"node":"a:1","httpAddress":"a"}`)
	f.Fuzz(func(t *testing.T, body string) {
		var hb Heartbeat
		if json.Unmarshal([]byte(body), &hb) != nil {
			return
		}
		if hb.Validate() != nil {
			return
		}
		// A valid heartbeat survives a round trip unchanged.
		b, err := json.Marshal(hb)
		if err != nil {
			t.Fatalf("marshal a valid heartbeat: %v", err)
		}
		var back Heartbeat
		if err := json.Unmarshal(b, &back); err != nil || back.Validate() != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
		if back.Node != hb.Node || back.HTTPAddress != hb.HTTPAddress || back.HasReport() != hb.HasReport() || len(back.SlowPeers) != len(hb.SlowPeers) {
			t.Fatalf("round trip changed %+v into %+v", hb, back)
		}
		for i := range hb.SlowPeers {
			if back.SlowPeers[i] != hb.SlowPeers[i] {
				t.Fatalf("round trip changed peer %d: %+v into %+v", i, hb.SlowPeers[i], back.SlowPeers[i])
			}
		}
	})
}
