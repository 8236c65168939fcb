package tracker

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// naiveTracker is the Tracker's specification written as plainly as
// possible: a map of every report, filtered and sorted on every read, as
// Hadoop's SlowPeerTracker does, with DESIGN.md's replacement, expiry and
// tie-breaks.
type naiveTracker struct {
	validity time.Duration
	reports  map[string]map[string]naiveReport // slow node -> reporter -> report
}

type naiveReport struct {
	arrival time.Time
	peer    reports.SlowPeer
}

func newNaiveTracker(validity time.Duration) *naiveTracker {
	return &naiveTracker{validity: validity, reports: map[string]map[string]naiveReport{}}
}

func (n *naiveTracker) Report(now time.Time, reporter string, peers []reports.SlowPeer) {
	for slow, m := range n.reports {
		delete(m, reporter)
		if len(m) == 0 {
			delete(n.reports, slow)
		}
	}
	for _, p := range peers {
		if p.Node == reporter {
			continue
		}
		if n.reports[p.Node] == nil {
			n.reports[p.Node] = map[string]naiveReport{}
		}
		n.reports[p.Node][reporter] = naiveReport{arrival: now, peer: p}
	}
}

func (n *naiveTracker) valid(now time.Time, slow string) []reports.Reporter {
	var out []reports.Reporter
	for reporter, r := range n.reports[slow] {
		if now.Sub(r.arrival) < n.validity {
			out = append(out, reports.Reporter{Node: reporter, LatencyMs: r.peer.LatencyMs,
				MedianMs: r.peer.MedianMs, MADMs: r.peer.MADMs, UpperLimitMs: r.peer.UpperLimitMs})
		}
	}
	slices.SortFunc(out, func(a, b reports.Reporter) int { return strings.Compare(a.Node, b.Node) })
	return out
}

func (n *naiveTracker) Top(now time.Time, k int) []reports.SlowNode {
	all := []reports.SlowNode{}
	for slow := range n.reports {
		if rs := n.valid(now, slow); len(rs) > 0 {
			all = append(all, reports.SlowNode{Node: slow, Reporters: rs})
		}
	}
	slices.SortFunc(all, func(a, b reports.SlowNode) int {
		return cmp.Or(
			cmp.Compare(len(b.Reporters), len(a.Reporters)),
			cmp.Compare(b.MaxLatencyMs(), a.MaxLatencyMs()),
			strings.Compare(a.Node, b.Node))
	})
	return all[:max(0, min(k, len(all)))]
}

func (n *naiveTracker) IsSlow(now time.Time, node string) bool { return len(n.valid(now, node)) > 0 }

func (n *naiveTracker) Expire(now time.Time) int {
	deleted := 0
	for slow, m := range n.reports {
		for reporter, r := range m {
			if now.Sub(r.arrival) >= n.validity {
				delete(m, reporter)
				deleted++
			}
		}
		if len(m) == 0 {
			delete(n.reports, slow)
		}
	}
	return deleted
}

func (n *naiveTracker) Forget(node string) int {
	deleted := len(n.reports[node])
	delete(n.reports, node)
	for slow, m := range n.reports {
		if _, ok := m[node]; ok {
			delete(m, node)
			deleted++
		}
		if len(m) == 0 {
			delete(n.reports, slow)
		}
	}
	return deleted
}

func (n *naiveTracker) Counts(now time.Time) []NodeCount {
	out := []NodeCount{}
	for slow := range n.reports {
		if rs := n.valid(now, slow); len(rs) > 0 {
			out = append(out, NodeCount{Node: slow, Reporters: len(rs)})
		}
	}
	slices.SortFunc(out, func(a, b NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return out
}

func (n *naiveTracker) Entries() int {
	total := 0
	for _, m := range n.reports {
		total += len(m)
	}
	return total
}

// TestTrackerMatchesReference runs thousands of random operation sequences
// on a Tracker and on naiveTracker and requires the same answers. Few node
// names make collisions, self-reports and repeated peers common; latencies
// from a small set make ties; times move in whole seconds, against a
// validity of 10 s, so that reads fall exactly on the validity boundary, and
// now and then go back a little, as concurrent requests can.
func TestTrackerMatchesReference(t *testing.T) {
	sequences, steps := 2000, 60
	if testing.Short() {
		sequences = 200
	}
	const validity = 10 * time.Second
	names := []string{"a:1", "b:1", "c:1", "d:1", "e:1", "f:1"}
	latencies := []float64{1, 2, 2, 3, 7.5}
	for seq := range sequences {
		rng := rand.New(rand.NewPCG(uint64(seq), 7))
		tr, ref := New(validity), newNaiveTracker(validity)
		clock := trackerT0
		var log []string // the operations so far, to reproduce a failure
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("sequence %d after\n  %s\n%s", seq, strings.Join(log, "\n  "), fmt.Sprintf(format, args...))
		}
		for range steps {
			clock = clock.Add(time.Duration(rng.IntN(7)) * time.Second)
			now := clock
			if rng.IntN(5) == 0 {
				now = now.Add(-time.Duration(rng.IntN(3)) * time.Second)
			}
			when := now.Sub(trackerT0)
			switch op := rng.IntN(11); {
			case op < 4:
				reporter := names[rng.IntN(len(names))]
				peers := make([]reports.SlowPeer, rng.IntN(5))
				for i := range peers {
					peers[i] = trackerPeer(names[rng.IntN(len(names))], latencies[rng.IntN(len(latencies))])
				}
				log = append(log, fmt.Sprintf("+%v Report(%s, %v)", when, reporter, peers))
				tr.Report(now, reporter, peers)
				ref.Report(now, reporter, peers)
			case op < 6:
				k := rng.IntN(len(names)+2) - 1
				log = append(log, fmt.Sprintf("+%v Top(%d)", when, k))
				if got, want := tr.Top(now, k), ref.Top(now, k); !reflect.DeepEqual(got, want) {
					fail("Top = %+v\nwant  %+v", got, want)
				}
			case op < 7:
				node := names[rng.IntN(len(names))]
				log = append(log, fmt.Sprintf("+%v IsSlow(%s)", when, node))
				if got, want := tr.IsSlow(now, node), ref.IsSlow(now, node); got != want {
					fail("IsSlow = %v, want %v", got, want)
				}
			case op < 8:
				log = append(log, fmt.Sprintf("+%v Counts", when))
				if got, want := tr.Counts(now), ref.Counts(now); !slices.Equal(got, want) {
					fail("Counts = %v, want %v", got, want)
				}
			case op < 9:
				node := names[rng.IntN(len(names))]
				log = append(log, fmt.Sprintf("+%v Forget(%s)", when, node))
				if got, want := tr.Forget(node), ref.Forget(node); got != want {
					fail("Forget = %d, want %d", got, want)
				}
			default:
				log = append(log, fmt.Sprintf("+%v Expire", when))
				if got, want := tr.Expire(now), ref.Expire(now); got != want {
					fail("Expire = %d, want %d", got, want)
				}
			}
			if got, want := tr.Entries(), ref.Entries(); got != want {
				fail("Entries = %d, want %d", got, want)
			}
			checkInvariants(t, tr)
			if t.Failed() {
				fail("invariants broken")
			}
		}
	}
}

// checkInvariants checks the Tracker's internal links: every entry is
// reachable from both its reporter and its slow node at the positions each
// records, counts agree, and every id is either named and in use or free.
func checkInvariants(t *testing.T, tr *Tracker) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if got, want := len(tr.ids)+len(tr.free), len(tr.nodes); got != want {
		t.Errorf("%d named ids + %d free ids, want %d", len(tr.ids), len(tr.free), want)
	}
	for name, id := range tr.ids {
		if n := &tr.nodes[id]; !n.live || n.name != name {
			t.Errorf("ids[%q] = %d, which holds %q (live %v)", name, id, n.name, n.live)
		}
	}
	for _, id := range tr.free {
		if !reflect.DeepEqual(tr.nodes[id], node{}) {
			t.Errorf("free id %d holds %+v", id, tr.nodes[id])
		}
	}
	heldByReporters, heldBySlow := 0, 0
	for i := range tr.nodes {
		id, n := uint32(i), &tr.nodes[i]
		if !n.live {
			continue
		}
		if len(n.reports) == 0 && len(n.reportedBy) == 0 {
			t.Errorf("node %q neither reports nor is reported, yet is held", n.name)
		}
		seen := map[uint32]bool{}
		for j, ref := range n.reports {
			if ref.slow == id || seen[ref.slow] {
				t.Errorf("node %q reports %q twice or itself", n.name, tr.nodes[ref.slow].name)
			}
			seen[ref.slow] = true
			if es := tr.nodes[ref.slow].reportedBy; int(ref.index) >= len(es) || es[ref.index].reporter != id || es[ref.index].refIndex != uint32(j) {
				t.Errorf("entry %q -> %q is not where its slow node says", n.name, tr.nodes[ref.slow].name)
			}
		}
		for j, e := range n.reportedBy {
			if refs := tr.nodes[e.reporter].reports; int(e.refIndex) >= len(refs) || refs[e.refIndex].slow != id || refs[e.refIndex].index != uint32(j) {
				t.Errorf("reporter %q of %q does not hold the entry", tr.nodes[e.reporter].name, n.name)
			}
		}
		heldByReporters += len(n.reports)
		heldBySlow += len(n.reportedBy)
	}
	slow := 0
	for i := range tr.nodes {
		if len(tr.nodes[i].reportedBy) > 0 {
			slow++
		}
	}
	if slow != tr.slow {
		t.Errorf("slow = %d, but %d nodes are reported", tr.slow, slow)
	}
	if heldByReporters != tr.entries || heldBySlow != tr.entries {
		t.Errorf("entries = %d, but reporters hold %d and slow nodes %d", tr.entries, heldByReporters, heldBySlow)
	}
}
