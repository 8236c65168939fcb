package datanode

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// A service asks an agent for 3 blocks to a peer in its reply (and for
// one to a node the agent does not know): the agent writes them at once
// and its next heartbeat, long before the heartbeat interval, carries
// them with their round.
func TestAgentAnswersProbeRequests(t *testing.T) {
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, 2)
	var asked atomic.Bool
	svc.mu.Lock()
	svc.answer = func(hb reports.Heartbeat) string {
		if hb.Node != ids[0] || asked.Swap(true) {
			return `{"slow":false}`
		}
		return `{"slow":false,"probe":[{"node":"` + ids[1] + `","blocks":3,"round":7},{"node":"10.9.9.9:9866","blocks":1,"round":7}]}`
	}
	svc.mu.Unlock()
	var agents []*Agent
	for i := range 2 {
		cfg := clusterConfig(i, -1, ids, lns, svc.srv.URL)
		// A heartbeat a minute, blocks to the one peer every 10 minutes:
		// only the asked-for blocks and an early heartbeat can make the
		// second heartbeat.
		cfg.HeartbeatInterval, cfg.MaxRetryBackoff = time.Minute, time.Minute
		cfg.ProbeInterval, cfg.ProbePackets, cfg.ProbeCoverage = 10*time.Minute, 4, time.Hour
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	for _, a := range agents {
		defer startAgent(t, a)()
	}
	var got reports.RecentLatency
	// Well within the heartbeat interval: only an early heartbeat can.
	waitFor(t, 30*time.Second, "a heartbeat with the blocks of round 7", func() bool {
		for _, hb := range svc.Beats() {
			for _, r := range hb.RecentLatencies {
				if hb.Node == ids[0] && r.Round == 7 {
					got = r
					return true
				}
			}
		}
		return false
	}, svc)
	if got.Node != ids[1] || got.Blocks != 3 || got.LatencyMs <= 0 {
		t.Fatalf("round 7's evidence %+v, want 3 blocks to %s", got, ids[1])
	}
	st := agents[0].Stats()
	if st.ProbeRequestedBlocks != 3 || st.ProbeRequestsIgnored != 1 {
		t.Fatalf("requested blocks %d, requests ignored %d; want 3, 1", st.ProbeRequestedBlocks, st.ProbeRequestsIgnored)
	}
}

// In a cluster of 4, every agent's heartbeats carry its coverage blocks
// to each of its 3 peers as recentLatencies of round 0.
func TestAgentHeartbeatsCarryCoverage(t *testing.T) {
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, 4)
	for i := range 4 {
		a, err := New(clusterConfig(i, -1, ids, lns, svc.srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		defer startAgent(t, a)()
	}
	waitFor(t, 30*time.Second, "every agent's recentLatencies naming its 3 peers", func() bool {
		seen := map[[2]string]bool{}
		for _, hb := range svc.Beats() {
			for _, r := range hb.RecentLatencies {
				if r.Round != 0 || r.Node == hb.Node || r.Blocks < 1 {
					t.Fatalf("heartbeat of %s carries %+v", hb.Node, r)
				}
				seen[[2]string{hb.Node, r.Node}] = true
			}
		}
		return len(seen) == 4*3
	}, svc)
}
