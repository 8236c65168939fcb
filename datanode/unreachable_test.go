package datanode

import (
	"net"
	"testing"
	"time"
)

// A peer is dropped after ProbeMaxFailures failures in a row; a latency
// in between starts the count again; 0 never drops.
func TestPeerMetricsDropsUnreachablePeer(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	cfg := testMetricsConfig(0, 1)
	cfg.ProbeMaxFailures = 3
	m := NewPeerMetrics(cfg)
	m.AddSendPacketDownstreamAt(now, "10.0.0.5:9866", 40*time.Millisecond)
	m.AddSendPacketDownstreamAt(now, "10.0.0.6:9866", 2*time.Millisecond)

	if m.AddFailure("10.0.0.5:9866") || m.AddFailure("10.0.0.5:9866") {
		t.Fatal("dropped before the third failure")
	}
	m.AddSendPacketDownstreamAt(now, "10.0.0.5:9866", 40*time.Millisecond) // it answered: start again
	if n := m.Failures("10.0.0.5:9866"); n != 0 {
		t.Fatalf("Failures after a latency = %d", n)
	}
	for i := range 2 {
		if m.AddFailure("10.0.0.5:9866") {
			t.Fatalf("dropped at failure %d after the reset", i+1)
		}
	}
	if !m.AddFailure("10.0.0.5:9866") {
		t.Fatal("not dropped at the third failure in a row")
	}
	got := m.Latencies(now)
	if len(got) != 1 || got[0].Key != "10.0.0.6:9866" {
		t.Fatalf("Latencies after the drop = %+v, want 10.0.0.6 only", got)
	}
	// The outage goes on: nothing more to drop, nothing more reported.
	for range 5 {
		if m.AddFailure("10.0.0.5:9866") {
			t.Fatal("dropped twice in one outage")
		}
	}
	if n := m.Failures("10.0.0.5:9866"); n != 8 {
		t.Fatalf("Failures during the outage = %d, want 8", n)
	}
	// It comes back, is measured afresh, and a new outage drops it again.
	m.AddSendPacketDownstreamAt(now, "10.0.0.5:9866", 3*time.Millisecond)
	if got := m.Latencies(now); len(got) != 2 || got[0].Mean != 3 || got[0].Count != 1 {
		t.Fatalf("Latencies after it came back = %+v", got)
	}
	if m.AddFailure("10.0.0.5:9866") || m.AddFailure("10.0.0.5:9866") || !m.AddFailure("10.0.0.5:9866") {
		t.Fatal("a second outage: want the drop at the third failure")
	}
	// A peer this agent never timed has nothing to drop.
	for range 3 {
		if m.AddFailure("10.0.0.9:9866") {
			t.Fatal("dropped a peer that had no averages")
		}
	}

	cfg.ProbeMaxFailures = 0
	never := NewPeerMetrics(cfg)
	never.AddSendPacketDownstreamAt(now, "10.0.0.5:9866", 40*time.Millisecond)
	for range 10 {
		if never.AddFailure("10.0.0.5:9866") {
			t.Fatal("dropped with ProbeMaxFailures 0")
		}
	}
	if len(never.Latencies(now)) != 1 {
		t.Fatal("lost the peer with ProbeMaxFailures 0")
	}
}

// Six agents probe each other; one slow agent is reported, then stopped.
// Its peers find it gone (refused dials) within a few probes and their
// next reports no longer name it.
func TestAgentsDropDeadPeer(t *testing.T) {
	const n, slow = 6, 2
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, n)
	var agents []*Agent
	stops := make([]func(), n)
	for i := range n {
		a, err := New(clusterConfig(i, slow, ids, lns, svc.srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
		stops[i] = startAgent(t, a)
	}
	// reporters counts the agents whose latest report names node.
	reporters := func(node string) int {
		latest := map[string]bool{}
		for _, hb := range svc.Beats() {
			if !hb.HasReport() {
				continue
			}
			latest[hb.Node] = false
			for _, p := range hb.SlowPeers {
				if p.Node == node {
					latest[hb.Node] = true
				}
			}
		}
		k := 0
		for _, named := range latest {
			if named {
				k++
			}
		}
		return k
	}
	waitFor(t, 60*time.Second, "2 agents reporting "+ids[slow], func() bool { return reporters(ids[slow]) >= 2 }, svc)
	stops[slow]()
	// Nothing listens on its port now: dials are refused.
	if c, err := net.Dial("tcp", ids[slow]); err == nil {
		c.Close()
		t.Fatal("the stopped agent's data port still accepts")
	}
	stopped := time.Now()
	held := func() bool {
		for i, a := range agents {
			for _, l := range a.PeerMetrics().Latencies(time.Now()) {
				if i != slow && l.Key == ids[slow] {
					return true
				}
			}
		}
		return false
	}
	waitFor(t, 30*time.Second, "no agent reporting or holding the stopped "+ids[slow], func() bool {
		return reporters(ids[slow]) == 0 && !held()
	}, svc)
	t.Logf("the stopped agent left every report %v after it stopped", time.Since(stopped).Round(10*time.Millisecond))
	dropped := int64(0)
	for i, a := range agents {
		if i != slow {
			dropped += a.Stats().PeersDropped
		}
	}
	if dropped == 0 {
		t.Fatal("no agent counted a dropped peer")
	}
}
