package namenode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// clusterBeats sends one heartbeat with peerLatencies from each of n
// nodes: every pair 0.1 ms, except what lat says.
func clusterBeats(t *testing.T, s *Server, n int, lat func(from, to int) float64) {
	t.Helper()
	for i := range n {
		hb := reports.Heartbeat{Node: node(i), PeerLatencies: []reports.PeerLatency{}}
		for j := range n {
			if j != i {
				hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: node(j), LatencyMs: lat(i, j), Samples: 500})
			}
		}
		mustHeartbeat(t, s, hb)
	}
}

func node(i int) string { return fmt.Sprintf("10.0.0.%d:9866", i+1) }

// getFindings reads GET /v1/slownodes: the last Diagnose.
func getFindings(t *testing.T, s *Server) []diagnosis.Finding {
	t.Helper()
	w := do(t, s, "GET", SlowNodesPath, "")
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", SlowNodesPath, w.Code, w.Body)
	}
	var fs []diagnosis.Finding
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fs); err != nil {
		t.Fatalf("GET %s: %q: %v", SlowNodesPath, w.Body, err)
	}
	return fs
}

// TestSlowNodes: peerLatencies fill the matrix; /v1/slownodes names the
// slow receiver as inbound and the metrics count it; a later report of a
// reporter replaces its row, so the finding goes once the reporters say
// so, at the next diagnosis (at most DiagnoseEvery later).
func TestSlowNodes(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	if fs := getFindings(t, s); len(fs) != 0 {
		t.Fatalf("empty service: findings %+v", fs)
	}
	const n = 8
	clusterBeats(t, s, n, func(from, to int) float64 {
		if to == 3 {
			return 4 // 40 × the others, under Hadoop's 5 ms floor
		}
		return 0.1
	})
	if fs := getFindings(t, s); len(fs) != 0 {
		t.Fatalf("before a diagnosis: findings %+v, want none", fs)
	}
	clock.Advance(DiagnoseEvery)
	s.Diagnose(clock.Now())
	fs := getFindings(t, s)
	if len(fs) != 1 || fs[0].Node != node(3) || fs[0].Kind != diagnosis.Inbound || fs[0].Reporters != n-1 {
		t.Fatalf("findings %+v, want %s inbound with %d reporters", fs, node(3), n-1)
	}
	w := do(t, s, "GET", MetricsPath, "")
	for _, want := range []string{
		"# TYPE slowpeer_slow_node_findings gauge\n",
		`slowpeer_slow_node_findings{kind="inbound"} 1` + "\n",
		`slowpeer_slow_node_findings{kind="outbound"} 0` + "\n",
		`slowpeer_slow_node_findings{kind="rack"} 0` + "\n",
	} {
		if !strings.Contains(w.Body.String(), want) {
			t.Fatalf("/metrics lacks %q:\n%s", want, w.Body)
		}
	}

	// Node 3 is healthy again: each new report replaces its sender's row.
	clusterBeats(t, s, n, func(from, to int) float64 { return 0.1 })
	clock.Advance(time.Second)
	if fs := getFindings(t, s); len(fs) != 1 {
		t.Fatalf("before the next diagnosis: findings %+v, want the published one", fs)
	}
	clock.Advance(DiagnoseEvery)
	s.Diagnose(clock.Now())
	if fs := getFindings(t, s); len(fs) != 0 {
		t.Fatalf("after fresh reports: findings %+v, want none", fs)
	}
}

// TestSlowNodesKinds: a slow sender, a bad link, and with a topology a
// slow rack, each as one finding of its kind.
func TestSlowNodesKinds(t *testing.T) {
	f := func(name string, edit func(*Config), lat func(from, to int) float64, want diagnosis.Finding) {
		t.Helper()
		s, clock, _ := newTestServer(t, edit)
		clusterBeats(t, s, 12, lat)
		clock.Advance(DiagnoseEvery)
		s.Diagnose(clock.Now())
		fs := getFindings(t, s)
		if len(fs) != 1 || want.Node != "" && fs[0].Node != want.Node || fs[0].Kind != want.Kind || fs[0].Peer != want.Peer || fs[0].Rack != want.Rack {
			t.Fatalf("%s: findings %+v, want one %+v", name, fs, want)
		}
	}
	base := func(from, to int) float64 { return 0.1 + 0.01*float64((from*7+to*3)%5) }
	f("slow sender", nil, func(from, to int) float64 {
		if from == 5 {
			return 3
		}
		return base(from, to)
	}, diagnosis.Finding{Node: node(5), Kind: diagnosis.Outbound})
	f("bad link", nil, func(from, to int) float64 {
		if from == 2 && to == 7 || from == 7 && to == 2 {
			return 3
		}
		return base(from, to)
	}, diagnosis.Finding{Node: node(2), Kind: diagnosis.Link, Peer: node(7)})

	table := ""
	for i := range 12 {
		table += fmt.Sprintf("%s /r%d\n", strings.TrimSuffix(node(i), ":9866"), i/4)
	}
	topo, err := diagnosis.ParseTopology(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	f("slow rack", func(c *Config) { c.Topology = topo }, func(from, to int) float64 {
		if (from/4 == 1) != (to/4 == 1) {
			return 3 // across the edge of rack /r1
		}
		return base(from, to)
	}, diagnosis.Finding{Kind: diagnosis.Rack, Rack: "/r1"}) // Node: the rack's slowest
}

// Diagnose drops the rows of reporters that stopped sending, after the
// report validity, as the tracker drops their reports.
func TestSlowNodesExpire(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	clusterBeats(t, s, 6, func(from, to int) float64 { return 0.1 })
	if n := s.diag.matrix.Len(); n != 0 {
		t.Fatalf("%d cells before a diagnosis applied the rows, want 0", n)
	}
	s.Diagnose(clock.Now())
	if n := s.diag.matrix.Len(); n != 30 {
		t.Fatalf("%d cells, want 30", n)
	}
	clock.Advance(s.Config().ReportValidity())
	s.Diagnose(clock.Now())
	if n := s.diag.matrix.Len(); n != 0 {
		t.Fatalf("%d cells after the report validity, want 0", n)
	}
}
