package namenode

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// metricLine returns the sample line of /metrics that starts with
// prefix, or "".
func metricLine(t *testing.T, s *Server, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(do(t, s, "GET", MetricsPath, "").Body.String(), "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestSlowSetFromDiagnosis: the slow set follows the diagnosis, not the
// raw reports of reporters that send peerLatencies; a bad link is held
// apart and avoided by nobody; a reporter without peerLatencies still
// counts for the nodes it names.
func TestSlowSetFromDiagnosis(t *testing.T) {
	s, clock, _ := newTestServer(t, nil) // no hysteresis
	const n = 8
	// Node 3 acknowledges late; the link between 1 and 6 is bad. Every
	// reporter also reports node 5 slow, which its latencies deny (a
	// reporter's pause, say).
	for i := range n {
		hb := reports.Heartbeat{Node: node(i), PeerLatencies: []reports.PeerLatency{}}
		for j := range n {
			if j == i {
				continue
			}
			ms := 0.1 + 0.01*float64((i*7+j*3)%5)
			switch {
			case j == 3:
				ms = 4
			case i == 1 && j == 6, i == 6 && j == 1:
				ms = 3
			}
			hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: node(j), LatencyMs: ms, Samples: 500})
		}
		if i != 5 {
			hb.SlowPeers = []reports.SlowPeer{{Node: node(5), LatencyMs: 9, MedianMs: 0.1, MADMs: 0.01, UpperLimitMs: 0.3}}
		}
		mustHeartbeat(t, s, hb)
	}
	now := clock.Now()
	s.Diagnose(now)
	if got := strings.Join(s.SlowNodes(now), " "); got != node(3) {
		t.Fatalf("SlowNodes = %q, want %s; findings %+v", got, node(3), s.SlowNodeFindings())
	}
	if !mustHeartbeat(t, s, reports.Heartbeat{Node: node(3)}) || mustHeartbeat(t, s, reports.Heartbeat{Node: node(5)}) {
		t.Fatal("the heartbeat's answer does not follow the slow set")
	}
	if top := s.Tracker().Top(now, 5); len(top) != 1 || top[0].Node != node(5) {
		t.Fatalf("/slowpeers lost Hadoop's raw meaning: %+v", top)
	}
	for prefix, want := range map[string]string{
		"slowpeer_slow_set_nodes ":  "slowpeer_slow_set_nodes 1",
		"slowpeer_slow_set_links ":  "slowpeer_slow_set_links 1",
		"slowpeer_slow_set_member{": `slowpeer_slow_set_member{node="` + node(3) + `"} 1`,
	} {
		if got := metricLine(t, s, prefix); got != want {
			t.Errorf("/metrics: %q, want %q", got, want)
		}
	}

	// An agent that sends no peerLatencies (reading a Hadoop DataNode)
	// reports node 5: its report counts.
	mustHeartbeat(t, s, report("10.0.0.20:9866", node(5)))
	s.Diagnose(clock.Now())
	if got := strings.Join(s.SlowNodes(clock.Now()), " "); got != node(3)+" "+node(5) {
		t.Fatalf("SlowNodes with an unmeasured reporter = %q", got)
	}
}

// TestHeartbeatDoesNotWaitForFit: while a diagnosis runs (its lock held
// here), heartbeats with peerLatencies and every reader go through.
func TestHeartbeatDoesNotWaitForFit(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	clusterBeats(t, s, 6, func(from, to int) float64 { return 0.1 + float64(from+to)/100 })
	s.PeerLatencyCells(0) // ask for cells
	s.Diagnose(clock.Now())
	s.diag.stepMu.Lock()
	clusterBeats(t, s, 6, func(from, to int) float64 { return 0.1 })
	for _, path := range []string{SlowNodesPath, MetricsPath, SlowPeersPath} {
		if w := do(t, s, "GET", path, ""); w.Code != 200 {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
	}
	cells, _ := s.PeerLatencyCells(10)
	s.SlowNodes(clock.Now())
	s.diag.stepMu.Unlock()
	if len(cells) != 10 {
		t.Fatalf("%d cells of the last diagnosis, want 10", len(cells))
	}
	s.Diagnose(clock.Now())
	after, _ := s.PeerLatencyCells(0)
	for _, c := range after {
		if c.LatencyMs != 0.1 {
			t.Fatalf("cell %+v after the next diagnosis, want the new rows", c)
		}
	}
}

// TestPeerLatencyCellsOnDemand: cells are gathered once a reader asks,
// and dropped when nobody asks for a while.
func TestPeerLatencyCellsOnDemand(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	clusterBeats(t, s, 4, func(from, to int) float64 { return 0.1 })
	s.Diagnose(clock.Now())
	if c, _ := s.PeerLatencyCells(0); len(c) != 0 {
		t.Fatalf("cells before anyone asked: %d", len(c))
	}
	s.Diagnose(clock.Now())
	c, at := s.PeerLatencyCells(0)
	if len(c) != 12 || !at.Equal(clock.Now()) {
		t.Fatalf("%d cells of %v once asked, want 12 of %v", len(c), at, clock.Now())
	}
	for range cellsKeptSteps + 1 { // the first sees the last ask
		s.Diagnose(clock.Now())
	}
	if c, _ := s.PeerLatencyCells(0); len(c) != 0 {
		t.Fatalf("%d cells after nobody asked for %d diagnoses, want 0", len(c), cellsKeptSteps)
	}
}

// TestRunDiagnosis drives runDiagnosis with synctest's clock: the
// findings show once DiagnoseEvery passed after the rows came, and it
// returns when its context ends.
func TestRunDiagnosis(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _, _ := newTestServer(t, func(c *Config) { c.Now = nil })
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { s.runDiagnosis(ctx); close(done) }()
		clusterBeats(t, s, 8, func(from, to int) float64 {
			if to == 3 {
				return 4
			}
			return 0.1
		})
		if fs := getFindings(t, s); len(fs) != 0 {
			t.Fatalf("findings before the first run: %+v", fs)
		}
		time.Sleep(DiagnoseEvery)
		synctest.Wait()
		if fs := getFindings(t, s); len(fs) != 1 || fs[0].Kind != diagnosis.Inbound || fs[0].Node != node(3) {
			t.Fatalf("findings after DiagnoseEvery: %+v", fs)
		}
		cancel()
		<-done
	})
}
