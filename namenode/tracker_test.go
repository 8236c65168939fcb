package namenode

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// testValidity is 3 × the default dfs.datanode.outliers.report.interval.
const testValidity = 90 * time.Minute

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// peer is a slow peer whose statistics all derive from latencyMs, so that a
// test can tell them apart.
func peer(node string, latencyMs float64) reports.SlowPeer {
	return reports.SlowPeer{Node: node, LatencyMs: latencyMs, MedianMs: latencyMs / 10, MADMs: latencyMs / 100, UpperLimitMs: latencyMs / 2}
}

// report is one Report call.
type report struct {
	at       time.Duration
	reporter string
	peers    []reports.SlowPeer
}

func apply(tr *Tracker, rs []report) {
	for _, r := range rs {
		tr.Report(at(r.at), r.reporter, r.peers)
	}
}

// brief renders a Top answer as "slow<-reporter(latency),reporter(latency)"
// entries separated by "; ", and checks that every statistic came through.
func brief(t *testing.T, top []reports.SlowNode) string {
	t.Helper()
	var b strings.Builder
	for i, s := range top {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s.Node + "<-")
		for j, r := range s.Reporters {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%s(%g)", r.Node, r.LatencyMs)
			if want := peer("", r.LatencyMs); r.MedianMs != want.MedianMs || r.MADMs != want.MADMs || r.UpperLimitMs != want.UpperLimitMs {
				t.Errorf("%s on %s: statistics %+v, want those of %+v", r.Node, s.Node, r, want)
			}
		}
	}
	return b.String()
}

func TestNewTrackerPanicsOnBadValidity(t *testing.T) {
	f := func(validity time.Duration) {
		t.Helper()
		defer func() {
			t.Helper()
			if msg, _ := recover().(string); !strings.HasPrefix(msg, "BUG: ") {
				t.Errorf("NewTracker(%v) panicked with %q, want a BUG: panic", validity, msg)
			}
		}()
		NewTracker(validity)
	}
	f(0)
	f(-time.Second)
}

// Reference: SlowPeerTracker.getJsonReports ranks by the number of
// reporters; DESIGN.md adds the latency and name tie-breaks.
func TestTrackerTopOrder(t *testing.T) {
	f := func(name string, rs []report, now time.Duration, n int, want string) {
		t.Helper()
		tr := NewTracker(testValidity)
		apply(tr, rs)
		if got := brief(t, tr.Top(at(now), n)); got != want {
			t.Errorf("%s: Top(%d)\n got %s\nwant %s", name, n, got, want)
		}
	}
	f("most reporters first", []report{
		{0, "x:1", []reports.SlowPeer{peer("c:1", 9), peer("a:1", 1), peer("b:1", 1)}},
		{0, "y:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 1)}},
		{0, "z:1", []reports.SlowPeer{peer("a:1", 1)}},
	}, 0, 5, "a:1<-x:1(1),y:1(1),z:1(1); b:1<-x:1(1),y:1(1); c:1<-x:1(9)")
	f("ties by highest latency", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 5), peer("b:1", 2)}},
		{0, "y:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 9)}},
	}, 0, 5, "b:1<-x:1(2),y:1(9); a:1<-x:1(5),y:1(1)")
	f("then by name", []report{
		{0, "x:1", []reports.SlowPeer{peer("c:1", 5), peer("a:1", 5), peer("b:1", 5)}},
	}, 0, 5, "a:1<-x:1(5); b:1<-x:1(5); c:1<-x:1(5)")
	f("n truncates", []report{
		{0, "x:1", []reports.SlowPeer{peer("c:1", 3), peer("a:1", 1), peer("b:1", 2)}},
	}, 0, 2, "c:1<-x:1(3); b:1<-x:1(2)")
	f("reporters sorted by name whatever the arrival order", []report{
		{0, "z:1", []reports.SlowPeer{peer("a:1", 1)}},
		{1, "x:1", []reports.SlowPeer{peer("a:1", 2)}},
		{2, "y:1", []reports.SlowPeer{peer("a:1", 3)}},
	}, 2, 1, "a:1<-x:1(2),y:1(3),z:1(1)")
	f("expired reports do not count", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1)}},
		{0, "y:1", []reports.SlowPeer{peer("a:1", 1)}},
		{time.Hour, "z:1", []reports.SlowPeer{peer("b:1", 1)}},
	}, testValidity, 5, "b:1<-z:1(1)")
	f("expired latency does not break ties", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 99)}},
		{time.Hour, "y:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 2)}},
	}, testValidity, 5, "b:1<-y:1(2); a:1<-y:1(1)")
	f("nothing reported", nil, 0, 5, "")
}

func TestTrackerTopCarriesStatistics(t *testing.T) {
	tr := NewTracker(testValidity)
	tr.Report(t0, "10.0.0.2:9866", []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	})
	want := []reports.SlowNode{{Node: "10.0.0.5:9866", Reporters: []reports.Reporter{
		{Node: "10.0.0.2:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	}}}
	if got := tr.Top(t0, 5); !reflect.DeepEqual(got, want) {
		t.Errorf("Top = %+v, want %+v", got, want)
	}
}

func TestTrackerTopNotPositive(t *testing.T) {
	tr := NewTracker(testValidity)
	tr.Report(t0, "x:1", []reports.SlowPeer{peer("a:1", 1)})
	f := func(tr *Tracker, n int) {
		t.Helper()
		if got := tr.Top(t0, n); got == nil || len(got) != 0 {
			t.Errorf("Top(%d) = %#v, want an empty non-nil slice", n, got)
		}
	}
	f(tr, 0)
	f(tr, -3)
	f(NewTracker(testValidity), 5)
}

// Reference: SlowPeerTracker.filterNodeReports keeps a report while
// now - time < reportValidityMs, strictly.
func TestTrackerValidityBoundary(t *testing.T) {
	f := func(now time.Duration, want bool) {
		t.Helper()
		tr := NewTracker(testValidity)
		tr.Report(t0, "x:1", []reports.SlowPeer{peer("a:1", 1)})
		if got := tr.IsSlow(at(now), "a:1"); got != want {
			t.Errorf("IsSlow at +%v = %v, want %v", now, got, want)
		}
		if got := len(tr.Top(at(now), 5)) == 1; got != want {
			t.Errorf("Top at +%v lists a:1: %v, want %v", now, got, want)
		}
		each := 0
		tr.Each(at(now), func(string, int) { each++ })
		if got := each == 1; got != want {
			t.Errorf("Each at +%v visits a:1: %v, want %v", now, got, want)
		}
		if got := tr.Expire(at(now)) == 0; got != want {
			t.Errorf("Expire at +%v keeps the entry: %v, want %v", now, got, want)
		}
	}
	f(0, true)
	f(testValidity-time.Nanosecond, true)
	f(testValidity, false)
	f(testValidity+time.Nanosecond, false)
}

func TestTrackerReplace(t *testing.T) {
	f := func(name string, rs []report, now time.Duration, want string, entries int) {
		t.Helper()
		tr := NewTracker(testValidity)
		apply(tr, rs)
		if got := brief(t, tr.Top(at(now), 10)); got != want {
			t.Errorf("%s: Top\n got %s\nwant %s", name, got, want)
		}
		if got := tr.Entries(); got != entries {
			t.Errorf("%s: Entries = %d, want %d", name, got, entries)
		}
		checkInvariants(t, tr)
	}
	f("a later report replaces the whole earlier one", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 2)}},
		{time.Minute, "x:1", []reports.SlowPeer{peer("b:1", 7), peer("c:1", 3)}},
	}, time.Minute, "b:1<-x:1(7); c:1<-x:1(3)", 2)
	f("an empty report clears the reporter", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 2)}},
		{0, "y:1", []reports.SlowPeer{peer("b:1", 4)}},
		{time.Minute, "x:1", []reports.SlowPeer{}},
	}, time.Minute, "b:1<-y:1(4)", 1)
	f("a nil report clears too", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1)}},
		{time.Minute, "x:1", nil},
	}, time.Minute, "", 0)
	f("a repeated report renews the arrival", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1)}},
		{time.Hour, "x:1", []reports.SlowPeer{peer("a:1", 2)}},
	}, testValidity, "a:1<-x:1(2)", 1)
	f("one reporter does not renew another", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1)}},
		{time.Hour, "y:1", []reports.SlowPeer{peer("a:1", 2)}},
	}, testValidity, "a:1<-y:1(2)", 2)
	f("a reporter naming itself is ignored for that entry", []report{
		{0, "x:1", []reports.SlowPeer{peer("x:1", 9), peer("a:1", 1)}},
	}, 0, "a:1<-x:1(1)", 1)
	f("a report naming only its reporter holds nothing", []report{
		{0, "x:1", []reports.SlowPeer{peer("x:1", 9)}},
	}, 0, "", 0)
	f("a peer named twice keeps the last statistics", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 2), peer("a:1", 3)}},
	}, 0, "a:1<-x:1(3); b:1<-x:1(2)", 2)
	f("a slow node may report others", []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1)}},
		{0, "a:1", []reports.SlowPeer{peer("x:1", 2)}},
	}, 0, "x:1<-a:1(2); a:1<-x:1(1)", 2)
}

func TestTrackerExpire(t *testing.T) {
	tr := NewTracker(testValidity)
	apply(tr, []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 1)}},
		{10 * time.Minute, "y:1", []reports.SlowPeer{peer("a:1", 1)}},
		{20 * time.Minute, "z:1", []reports.SlowPeer{peer("c:1", 1), peer("d:1", 1), peer("e:1", 1)}},
	})
	f := func(now time.Duration, deleted, entries int) {
		t.Helper()
		if got := tr.Expire(at(now)); got != deleted {
			t.Errorf("Expire at +%v = %d, want %d", now, got, deleted)
		}
		if got := tr.Entries(); got != entries {
			t.Errorf("Entries after Expire at +%v = %d, want %d", now, got, entries)
		}
		checkInvariants(t, tr)
	}
	f(0, 0, 6)
	f(testValidity-time.Nanosecond, 0, 6)
	f(testValidity, 2, 4)
	f(testValidity, 0, 4)
	f(testValidity+10*time.Minute, 1, 3)
	f(testValidity+20*time.Minute, 3, 0)
	if n := len(tr.ids); n != 0 {
		t.Errorf("%d node names still held after everything expired", n)
	}
}

func TestTrackerIsSlow(t *testing.T) {
	tr := NewTracker(testValidity)
	f := func(now time.Duration, node string, want bool) {
		t.Helper()
		if got := tr.IsSlow(at(now), node); got != want {
			t.Errorf("IsSlow(+%v, %s) = %v, want %v", now, node, got, want)
		}
	}
	f(0, "a:1", false)
	tr.Report(t0, "x:1", []reports.SlowPeer{peer("a:1", 1)})
	f(0, "a:1", true)
	f(0, "x:1", false) // reporting is not being slow
	tr.Report(at(time.Hour), "y:1", []reports.SlowPeer{peer("a:1", 1)})
	f(testValidity, "a:1", true) // y's report still stands
	f(time.Hour+testValidity, "a:1", false)
	tr.Report(at(2*testValidity), "x:1", []reports.SlowPeer{peer("a:1", 1)})
	f(2*testValidity, "a:1", true)
	tr.Report(at(2*testValidity), "x:1", []reports.SlowPeer{})
	f(2*testValidity, "a:1", false)
}

func TestTrackerEach(t *testing.T) {
	tr := NewTracker(testValidity)
	apply(tr, []report{
		{0, "x:1", []reports.SlowPeer{peer("a:1", 1), peer("b:1", 1)}},
		{time.Hour, "y:1", []reports.SlowPeer{peer("a:1", 1)}},
	})
	f := func(now time.Duration, want map[string]int) {
		t.Helper()
		got := map[string]int{}
		tr.Each(at(now), func(node string, reporters int) { got[node] += reporters })
		if !maps.Equal(got, want) {
			t.Errorf("Each at +%v = %v, want %v", now, got, want)
		}
	}
	f(0, map[string]int{"a:1": 2, "b:1": 1})
	f(testValidity, map[string]int{"a:1": 1})
	f(time.Hour+testValidity, map[string]int{})
}

// TestTrackerConcurrent runs every method from several goroutines at once
// (meant for -race); each goroutine owns its reporters and reports at t0,
// so the final state is known.
func TestTrackerConcurrent(t *testing.T) {
	const goroutines, rounds, nodes = 4, 200, 12
	tr := NewTracker(testValidity)
	name := func(i int) string { return fmt.Sprintf("10.0.0.%d:9866", i%nodes) }
	final := func(g, r int) []reports.SlowPeer { // what reporter r of g says in its last round
		return []reports.SlowPeer{peer(name(g+r+1), float64(r)), peer(name(g+2*r+2), float64(g))}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for round := range rounds {
				for r := g; r < nodes; r += goroutines {
					if round == rounds-1 {
						tr.Report(t0, name(r), final(g, r))
					} else {
						tr.Report(t0, name(r), []reports.SlowPeer{peer(name(round+r+1), 1)})
					}
				}
				tr.Top(t0, 3)
				tr.IsSlow(t0, name(round))
				tr.Each(t0, func(string, int) {})
				tr.Expire(at(testValidity / 2))
				tr.Entries()
			}
		})
	}
	wg.Wait()
	ref := newNaiveTracker(testValidity)
	for g := range goroutines {
		for r := g; r < nodes; r += goroutines {
			ref.Report(t0, name(r), final(g, r))
		}
	}
	if got, want := tr.Top(t0, nodes), ref.Top(t0, nodes); !reflect.DeepEqual(got, want) {
		t.Errorf("after concurrent use Top =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := tr.Entries(), ref.Entries(); got != want {
		t.Errorf("after concurrent use Entries = %d, want %d", got, want)
	}
	checkInvariants(t, tr)
}
