package tracker

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// limitOf returns the Limit of a *LimitError, "" for nil.
func limitOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	le, ok := errors.AsType[*LimitError](err)
	if !ok {
		t.Fatalf("error %v is not a *LimitError", err)
	}
	return le.Limit
}

func peersNamed(names ...string) []reports.SlowPeer {
	out := make([]reports.SlowPeer, len(names))
	for i, n := range names {
		out[i] = trackerPeer(n, float64(10+i))
	}
	return out
}

func TestLimitsRefuseWhole(t *testing.T) {
	tr := NewLimited(trackerValidity, Limits{MaxEntries: 4, MaxSlowNodes: 3})
	if err := tr.Report(trackerT0, "r1:1", peersNamed("a:1", "b:1")); err != nil {
		t.Fatal(err)
	}
	if err := tr.Report(trackerT0, "r2:1", peersNamed("a:1", "b:1")); err != nil {
		t.Fatal(err)
	}
	before := tr.Top(trackerT0, 10)
	f := func(reporter string, peers []reports.SlowPeer, want string) {
		t.Helper()
		if got := limitOf(t, tr.Report(trackerT0, reporter, peers)); got != want {
			t.Fatalf("Report(%s, %d peers): limit %q, want %q", reporter, len(peers), got, want)
		}
	}
	// A fifth entry: refused, nothing changes.
	f("r3:1", peersNamed("a:1"), LimitEntries)
	if got := tr.Top(trackerT0, 10); !reflect.DeepEqual(got, before) || tr.Entries() != 4 {
		t.Fatalf("a refused report changed the tracker: %+v", got)
	}
	// Replacing a report within the limits is fine: r1 drops b and names c.
	f("r1:1", peersNamed("a:1", "c:1"), "")
	// Slow nodes that nobody names any more make room: b, then a and c go.
	f("r2:1", peersNamed("d:1"), "")
	f("r1:1", peersNamed("e:1"), "")
	// A fourth slow node is refused even where the entries would fit.
	f("r2:1", peersNamed("d:1", "f:1", "g:1"), LimitSlowNodes)
	// The reporter's own name does not count, and an empty report always fits.
	f("r2:1", peersNamed("r2:1", "d:1", "f:1"), "")
	f("r9:1", nil, "")
	if got := tr.SlowNodes(); got != 3 {
		t.Fatalf("SlowNodes = %d, want 3", got)
	}
	// What was admitted keeps working.
	if !tr.IsSlow(trackerT0, "e:1") || !tr.IsSlow(trackerT0, "f:1") {
		t.Fatal("admitted reports lost")
	}
}

func TestNewLimitedPanics(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.HasPrefix(msg, "BUG: ") {
			t.Errorf("NewLimited with a negative limit panicked with %q", msg)
		}
	}()
	NewLimited(trackerValidity, Limits{MaxEntries: -1})
}

// limitedNaive is naiveTracker with limits checked by applying a report to
// a copy and looking at the result.
type limitedNaive struct {
	*naiveTracker
	limits Limits
}

func (n *limitedNaive) Report(now time.Time, reporter string, peers []reports.SlowPeer) string {
	saved := make(map[string]map[string]naiveReport, len(n.reports))
	for k, v := range n.reports {
		saved[k] = maps.Clone(v)
	}
	n.naiveTracker.Report(now, reporter, peers)
	limit := ""
	switch {
	case n.limits.MaxEntries > 0 && n.Entries() > n.limits.MaxEntries:
		limit = LimitEntries
	case n.limits.MaxSlowNodes > 0 && len(n.reports) > n.limits.MaxSlowNodes:
		limit = LimitSlowNodes
	}
	if limit != "" {
		n.reports = saved
	}
	return limit
}

// TestLimitsMatchReference runs random reports against small limits on a
// Tracker and on limitedNaive: the same reports are refused for the same
// limit, and the states stay equal.
func TestLimitsMatchReference(t *testing.T) {
	sequences := 1000
	if testing.Short() {
		sequences = 100
	}
	names := []string{"a:1", "b:1", "c:1", "d:1", "e:1", "f:1", "g:1"}
	for seq := range sequences {
		rng := rand.New(rand.NewPCG(uint64(seq), 11))
		limits := Limits{MaxEntries: rng.IntN(8), MaxSlowNodes: rng.IntN(5)}
		tr := NewLimited(trackerValidity, limits)
		ref := &limitedNaive{newNaiveTracker(trackerValidity), limits}
		var log []string
		for step := range 40 {
			now := trackerAt(time.Duration(step) * time.Second)
			reporter := names[rng.IntN(len(names))]
			peers := make([]reports.SlowPeer, rng.IntN(5))
			for i := range peers {
				peers[i] = trackerPeer(names[rng.IntN(len(names))], float64(rng.IntN(4)))
			}
			log = append(log, fmt.Sprintf("Report(%s, %v)", reporter, peers))
			got, want := limitOf(t, tr.Report(now, reporter, peers)), ref.Report(now, reporter, peers)
			if got != want {
				t.Fatalf("sequence %d, limits %+v, after\n  %s\nlimit %q, want %q", seq, limits, strings.Join(log, "\n  "), got, want)
			}
			if g, w := tr.Top(now, len(names)), ref.Top(now, len(names)); !reflect.DeepEqual(g, w) {
				t.Fatalf("sequence %d after\n  %s\nTop = %+v\nwant  %+v", seq, strings.Join(log, "\n  "), g, w)
			}
			checkInvariants(t, tr)
			if t.Failed() {
				t.Fatalf("sequence %d after\n  %s", seq, strings.Join(log, "\n  "))
			}
		}
	}
}

// TopCounts gives Top's order and counts, without the reports, and the
// number of all slow nodes.
func TestTopCounts(t *testing.T) {
	tr := New(trackerValidity)
	tr.Report(trackerT0, "r1:1", peersNamed("a:1", "b:1", "c:1"))
	tr.Report(trackerT0, "r2:1", peersNamed("b:1"))
	tr.Report(trackerAt(-trackerValidity/2), "r3:1", peersNamed("c:1", "b:1"))
	now := trackerAt(trackerValidity/2 + time.Second) // r3's report has expired
	top, slow := tr.TopCounts(now, 2)
	want := []NodeCount{{Node: "b:1", Reporters: 2}, {Node: "c:1", Reporters: 1}}
	if !reflect.DeepEqual(top, want) || slow != 3 {
		t.Fatalf("TopCounts = %v, %d; want %v, 3", top, slow, want)
	}
	full := tr.Top(now, 2)
	for i := range full {
		if full[i].Node != top[i].Node || len(full[i].Reporters) != top[i].Reporters {
			t.Fatalf("TopCounts %v differs from Top %+v", top, full)
		}
	}
	if top, slow := tr.TopCounts(now, 0); top == nil || len(top) != 0 || slow != 3 {
		t.Fatalf("TopCounts(0) = %v, %d", top, slow)
	}
}
