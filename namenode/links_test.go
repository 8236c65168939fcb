package namenode

import (
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// What node 1's report says of its link to node 6 (linkCluster).
const (
	linkSlow    = iota // 1 → 6 takes 30 times its peers' latency
	linkFine           // 1 → 6 as fast as the others
	linkWithout        // the report leaves node 6 out (too few packets)
)

// linkCluster sends a report of each of 8 nodes at the clock's now, node
// 1's link to node 6 as say tells.
func linkCluster(t *testing.T, s *Server, say int) {
	t.Helper()
	for i := range 8 {
		hb := reports.Heartbeat{Node: node(i), PeerLatencies: []reports.PeerLatency{}}
		for j := range 8 {
			if j == i || i == 1 && j == 6 && say == linkWithout {
				continue
			}
			ms := 0.1 + 0.01*float64((i*7+j*3)%5)
			if i == 1 && j == 6 && say == linkSlow {
				ms = 3
			}
			hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: node(j), LatencyMs: ms, Samples: 500})
		}
		mustHeartbeat(t, s, hb)
	}
}

// TestSlowLinksConfirmed: with the default hysteresis, a link enters the
// slow set of links once it is found slow in two reports in a row of the
// node that measures it (diagnosis.LinkConfirmer, the simulator's rule),
// whatever the diagnoses in between; a report without the pair holds the
// streak, one that finds the pair fine breaks it. Reports come every
// report interval (5 min), diagnoses every minute, in synthetic time.
func TestSlowLinksConfirmed(t *testing.T) {
	link := diagnosis.LinkEntity(node(1), node(6))
	f := func(name string, says []int, in []bool) {
		t.Helper()
		s, clock, _ := newTestServer(t, func(c *Config) { c.SlowSet = tracker.DefaultSlowSetConfig() })
		for k, say := range says {
			linkCluster(t, s, say)
			for m := range 5 { // the diagnoses until the next report
				s.Diagnose(clock.Now())
				want := []string(nil)
				if in[k] {
					want = []string{link}
				}
				if got := s.slowLinks.Nodes(); !slices.Equal(got, want) {
					t.Fatalf("%s: report %d, minute %d: slow links %v, want %v; findings %+v",
						name, k, m, got, want, s.SlowNodeFindings())
				}
				if m == 0 && say == linkSlow && !hasLink(s.SlowNodeFindings(), node(1), node(6)) {
					t.Fatalf("%s: report %d: the diagnosis does not find the link: %+v", name, k, s.SlowNodeFindings())
				}
				if len(s.SlowNodes(clock.Now())) != 0 {
					t.Fatalf("%s: a link's ends in the slow set of nodes: %v", name, s.SlowNodes(clock.Now()))
				}
				clock.Advance(time.Minute)
			}
		}
	}
	// One slow report is not a link, however many diagnoses see it.
	f("one", []int{linkSlow, linkFine}, []bool{false, false})
	// The diagnosis after the second slow report in a row lets it in.
	f("two", []int{linkSlow, linkSlow, linkSlow}, []bool{false, true, true})
	// A report without the pair is no news: the next slow one is the
	// second.
	f("held", []int{linkSlow, linkWithout, linkSlow}, []bool{false, false, true})
	// A report that finds the pair fine breaks the streak: two more slow
	// ones are needed.
	f("broken", []int{linkSlow, linkFine, linkSlow, linkSlow}, []bool{false, false, false, true})
}

// TestSlowLinksRaw: without hysteresis (DefaultLocalConfig's and the raw
// SlowSet, EnterAfter 0) a link enters at the first diagnosis that finds
// it and leaves at the first that does not.
func TestSlowLinksRaw(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.SlowSet = DefaultLocalConfig().SlowSet })
	linkCluster(t, s, linkSlow)
	s.Diagnose(clock.Now())
	if got, want := s.slowLinks.Nodes(), []string{diagnosis.LinkEntity(node(1), node(6))}; !slices.Equal(got, want) {
		t.Fatalf("slow links after one finding = %v, want %v", got, want)
	}
	clock.Advance(time.Second)
	linkCluster(t, s, linkFine)
	s.Diagnose(clock.Now())
	if got := s.slowLinks.Nodes(); len(got) != 0 {
		t.Fatalf("slow links once fine = %v, want none", got)
	}
}

// hasLink reports whether findings hold a Link between a and b.
func hasLink(findings []diagnosis.Finding, a, b string) bool {
	return slices.ContainsFunc(findings, func(f diagnosis.Finding) bool {
		return f.Kind == diagnosis.Link && diagnosis.LinkEntity(f.Node, f.Peer) == diagnosis.LinkEntity(a, b)
	})
}
