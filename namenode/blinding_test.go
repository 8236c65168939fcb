package namenode

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// latencyFlood posts, in-process, one heartbeat from each of ids made-up
// reporters (named after seed) carrying peers peerLatencies of made-up
// peers, and returns the count of answers by status.
func latencyFlood(s *Server, ids, peers int, seed int) map[int]int {
	h := s.Handler()
	statuses := map[int]int{}
	var body bytes.Buffer
	for i := range ids {
		body.Reset()
		fmt.Fprintf(&body, `{"node":"fake-%d-%d.example:9866","slowPeers":[],"peerLatencies":[`, seed, i)
		for j := range peers {
			if j > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"node":"peer-%d-%d.example:9866","latencyMs":%d,"samples":500}`, seed, (i*31+j)%50000, 1+j%40)
		}
		body.WriteString("]}")
		statuses[post(h, body.Bytes())]++
	}
	return statuses
}

// realRow is the peerLatencies of real node i among n, of which slow
// acknowledges late.
func realRow(i, n, slow int) reports.Heartbeat {
	hb := reports.Heartbeat{Node: node(i), SlowPeers: []reports.SlowPeer{}, PeerLatencies: []reports.PeerLatency{}}
	for j := range n {
		if j == i {
			continue
		}
		ms := 0.1 + 0.01*float64((i*7+j*3)%5)
		if j == slow {
			ms = 4
		}
		hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: node(j), LatencyMs: ms, Samples: 500})
	}
	return hb
}

// periodFound runs the scenario of the blinding test, with or without
// the flood, in synthetic time: 12 real DataNodes heartbeat from the
// start, the flood (if any) comes a second later, the real reports two
// seconds later, and Diagnose runs every DiagnoseEvery. It returns the
// first period (counted from the real reports) whose diagnosis finds the
// slow node, or -1 after 10 periods, and the flood's answers.
func periodFound(t *testing.T, flood bool, fakes int) (int, map[int]int, *Server) {
	const real, slow = 12, 3
	s, clock, _ := newTestServer(t, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
	for i := range real {
		mustHeartbeat(t, s, reports.Heartbeat{Node: node(i)})
	}
	clock.Advance(time.Second)
	statuses := map[int]int{}
	if flood {
		// Within the cell limit: they take the free rows, then get 429.
		for code, n := range latencyFlood(s, fakes, s.Config().MaxPeerLatencies, 1) {
			statuses[code] += n
		}
		// Past it: 429 each, nothing taken.
		for code, n := range latencyFlood(s, fakes, 256, 2) {
			statuses[code] += n
		}
	}
	clock.Advance(time.Second)
	for i := range real {
		mustHeartbeat(t, s, realRow(i, real, slow))
	}
	for period := range 10 {
		for _, f := range s.Diagnose(clock.Now()) {
			if f.Node == node(slow) && f.Kind == diagnosis.Inbound {
				return period, statuses, s
			}
		}
		clock.Advance(DiagnoseEvery)
		for i := range real { // the real nodes keep heartbeating
			mustHeartbeat(t, s, reports.Heartbeat{Node: node(i)})
		}
	}
	return -1, statuses, s
}

// TestFloodCannotBlindDiagnosis: 20 000 made-up reporters post
// peerLatencies, 64 each (the cell limit) and then 256 each, while 12
// real DataNodes, live before the flood began, see one slow node. The
// flood takes the free rows and gets 429 for the rest; the real
// reporters take the rows of the newest made-up ones, and the slow node
// is found within one diagnosis period of when it is found without the
// flood.
func TestFloodCannotBlindDiagnosis(t *testing.T) {
	fakes := 20000
	if testing.Short() {
		fakes = 2000
	}
	base, _, _ := periodFound(t, false, 0)
	if base < 0 {
		t.Fatal("the slow node is not found even without the flood")
	}
	got, statuses, s := periodFound(t, true, fakes)
	t.Logf("found in period %d with the flood, %d without; flood answers %v", got, base, statuses)
	if got < 0 || got > base+1 {
		t.Fatalf("with the flood the slow node is found in period %d, without in %d", got, base)
	}
	rows := s.Config().MaxDiagnosisReporters
	if want := 2*fakes - min(fakes, rows); statuses[http.StatusTooManyRequests] != want {
		t.Fatalf("flood answers %v, want %d × 429", statuses, want)
	}
	if n := s.metrics.rejected[reasonLimitPeerLatencies].Get(); n != uint64(fakes) {
		t.Fatalf("%d refusals counted as limit_peer_latencies, want %d", n, fakes)
	}
	if n := s.diag.evicted.Load(); fakes >= rows && n != 12 {
		t.Fatalf("%d rows evicted, want the 12 newest made-up ones", n)
	}
	if n := s.diag.matrix.Reporters(); n > rows {
		t.Fatalf("%d rows, limit %d", n, rows)
	}
}
