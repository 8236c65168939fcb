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

// trackerValidity is 3 × the default dfs.datanode.outliers.report.interval.
const trackerValidity = 90 * time.Minute

var trackerT0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func trackerAt(d time.Duration) time.Time { return trackerT0.Add(d) }

// trackerPeer is a slow peer whose statistics all derive from latencyMs,
// so that a test can tell them apart.
func trackerPeer(node string, latencyMs float64) reports.SlowPeer {
	return reports.SlowPeer{Node: node, LatencyMs: latencyMs, MedianMs: latencyMs / 10, MADMs: latencyMs / 100, UpperLimitMs: latencyMs / 2}
}

// trackerReport is one Report call.
type trackerReport struct {
	at       time.Duration
	reporter string
	peers    []reports.SlowPeer
}

func applyReports(tr *Tracker, rs []trackerReport) {
	for _, r := range rs {
		tr.Report(trackerAt(r.at), r.reporter, r.peers)
	}
}

// briefTop renders a Top answer as "slow<-reporter(latency),..." entries
// separated by "; ", and checks that every statistic came through.
func briefTop(t *testing.T, top []reports.SlowNode) string {
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
			if want := trackerPeer("", r.LatencyMs); r.MedianMs != want.MedianMs || r.MADMs != want.MADMs || r.UpperLimitMs != want.UpperLimitMs {
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
	f := func(name string, rs []trackerReport, now time.Duration, n int, want string) {
		t.Helper()
		tr := NewTracker(trackerValidity)
		applyReports(tr, rs)
		if got := briefTop(t, tr.Top(trackerAt(now), n)); got != want {
			t.Errorf("%s: Top(%d)\n got %s\nwant %s", name, n, got, want)
		}
	}
	f("most reporters first", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("c:1", 9), trackerPeer("a:1", 1), trackerPeer("b:1", 1)}},
		{0, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 1)}},
		{0, "z:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
	}, 0, 5, "a:1<-x:1(1),y:1(1),z:1(1); b:1<-x:1(1),y:1(1); c:1<-x:1(9)")
	f("ties by highest latency", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 5), trackerPeer("b:1", 2)}},
		{0, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 9)}},
	}, 0, 5, "b:1<-x:1(2),y:1(9); a:1<-x:1(5),y:1(1)")
	f("then by name", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("c:1", 5), trackerPeer("a:1", 5), trackerPeer("b:1", 5)}},
	}, 0, 5, "a:1<-x:1(5); b:1<-x:1(5); c:1<-x:1(5)")
	f("n truncates", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("c:1", 3), trackerPeer("a:1", 1), trackerPeer("b:1", 2)}},
	}, 0, 2, "c:1<-x:1(3); b:1<-x:1(2)")
	f("reporters sorted by name whatever the arrival order", []trackerReport{
		{0, "z:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{1, "x:1", []reports.SlowPeer{trackerPeer("a:1", 2)}},
		{2, "y:1", []reports.SlowPeer{trackerPeer("a:1", 3)}},
	}, 2, 1, "a:1<-x:1(2),y:1(3),z:1(1)")
	f("expired reports do not count", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{0, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{time.Hour, "z:1", []reports.SlowPeer{trackerPeer("b:1", 1)}},
	}, trackerValidity, 5, "b:1<-z:1(1)")
	f("expired latency does not break ties", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 99)}},
		{time.Hour, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 2)}},
	}, trackerValidity, 5, "b:1<-y:1(2); a:1<-y:1(1)")
	f("nothing reported", nil, 0, 5, "")
}

func TestTrackerTopCarriesStatistics(t *testing.T) {
	tr := NewTracker(trackerValidity)
	tr.Report(trackerT0, "10.0.0.2:9866", []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	})
	want := []reports.SlowNode{{Node: "10.0.0.5:9866", Reporters: []reports.Reporter{
		{Node: "10.0.0.2:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3},
	}}}
	if got := tr.Top(trackerT0, 5); !reflect.DeepEqual(got, want) {
		t.Errorf("Top = %+v, want %+v", got, want)
	}
}

func TestTrackerTopNotPositive(t *testing.T) {
	tr := NewTracker(trackerValidity)
	tr.Report(trackerT0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
	f := func(tr *Tracker, n int) {
		t.Helper()
		if got := tr.Top(trackerT0, n); got == nil || len(got) != 0 {
			t.Errorf("Top(%d) = %#v, want an empty non-nil slice", n, got)
		}
	}
	f(tr, 0)
	f(tr, -3)
	f(NewTracker(trackerValidity), 5)
}

// Reference: SlowPeerTracker.filterNodeReports keeps a report while
// now - time < reportValidityMs, strictly.
func TestTrackerValidityBoundary(t *testing.T) {
	f := func(now time.Duration, want bool) {
		t.Helper()
		tr := NewTracker(trackerValidity)
		tr.Report(trackerT0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
		if got := tr.IsSlow(trackerAt(now), "a:1"); got != want {
			t.Errorf("IsSlow at +%v = %v, want %v", now, got, want)
		}
		if got := len(tr.Top(trackerAt(now), 5)) == 1; got != want {
			t.Errorf("Top at +%v lists a:1: %v, want %v", now, got, want)
		}
		each := 0
		tr.Each(trackerAt(now), func(string, int) { each++ })
		if got := each == 1; got != want {
			t.Errorf("Each at +%v visits a:1: %v, want %v", now, got, want)
		}
		if got := tr.Expire(trackerAt(now)) == 0; got != want {
			t.Errorf("Expire at +%v keeps the entry: %v, want %v", now, got, want)
		}
	}
	f(0, true)
	f(trackerValidity-time.Nanosecond, true)
	f(trackerValidity, false)
	f(trackerValidity+time.Nanosecond, false)
}

func TestTrackerReplace(t *testing.T) {
	f := func(name string, rs []trackerReport, now time.Duration, want string, entries int) {
		t.Helper()
		tr := NewTracker(trackerValidity)
		applyReports(tr, rs)
		if got := briefTop(t, tr.Top(trackerAt(now), 10)); got != want {
			t.Errorf("%s: Top\n got %s\nwant %s", name, got, want)
		}
		if got := tr.Entries(); got != entries {
			t.Errorf("%s: Entries = %d, want %d", name, got, entries)
		}
		checkInvariants(t, tr)
	}
	f("a later report replaces the whole earlier one", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 2)}},
		{time.Minute, "x:1", []reports.SlowPeer{trackerPeer("b:1", 7), trackerPeer("c:1", 3)}},
	}, time.Minute, "b:1<-x:1(7); c:1<-x:1(3)", 2)
	f("an empty report clears the reporter", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 2)}},
		{0, "y:1", []reports.SlowPeer{trackerPeer("b:1", 4)}},
		{time.Minute, "x:1", []reports.SlowPeer{}},
	}, time.Minute, "b:1<-y:1(4)", 1)
	f("a nil report clears too", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{time.Minute, "x:1", nil},
	}, time.Minute, "", 0)
	f("a repeated report renews the arrival", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{time.Hour, "x:1", []reports.SlowPeer{trackerPeer("a:1", 2)}},
	}, trackerValidity, "a:1<-x:1(2)", 1)
	f("one reporter does not renew another", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{time.Hour, "y:1", []reports.SlowPeer{trackerPeer("a:1", 2)}},
	}, trackerValidity, "a:1<-y:1(2)", 2)
	f("a reporter naming itself is ignored for that entry", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("x:1", 9), trackerPeer("a:1", 1)}},
	}, 0, "a:1<-x:1(1)", 1)
	f("a report naming only its reporter holds nothing", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("x:1", 9)}},
	}, 0, "", 0)
	f("a peer named twice keeps the last statistics", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 2), trackerPeer("a:1", 3)}},
	}, 0, "a:1<-x:1(3); b:1<-x:1(2)", 2)
	f("a slow node may report others", []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{0, "a:1", []reports.SlowPeer{trackerPeer("x:1", 2)}},
	}, 0, "x:1<-a:1(2); a:1<-x:1(1)", 2)
}

func TestTrackerExpire(t *testing.T) {
	tr := NewTracker(trackerValidity)
	applyReports(tr, []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 1)}},
		{10 * time.Minute, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{20 * time.Minute, "z:1", []reports.SlowPeer{trackerPeer("c:1", 1), trackerPeer("d:1", 1), trackerPeer("e:1", 1)}},
	})
	f := func(now time.Duration, deleted, entries int) {
		t.Helper()
		if got := tr.Expire(trackerAt(now)); got != deleted {
			t.Errorf("Expire at +%v = %d, want %d", now, got, deleted)
		}
		if got := tr.Entries(); got != entries {
			t.Errorf("Entries after Expire at +%v = %d, want %d", now, got, entries)
		}
		checkInvariants(t, tr)
	}
	f(0, 0, 6)
	f(trackerValidity-time.Nanosecond, 0, 6)
	f(trackerValidity, 2, 4)
	f(trackerValidity, 0, 4)
	f(trackerValidity+10*time.Minute, 1, 3)
	f(trackerValidity+20*time.Minute, 3, 0)
	if n := len(tr.ids); n != 0 {
		t.Errorf("%d node names still held after everything expired", n)
	}
}

func TestTrackerIsSlow(t *testing.T) {
	tr := NewTracker(trackerValidity)
	f := func(now time.Duration, node string, want bool) {
		t.Helper()
		if got := tr.IsSlow(trackerAt(now), node); got != want {
			t.Errorf("IsSlow(+%v, %s) = %v, want %v", now, node, got, want)
		}
	}
	f(0, "a:1", false)
	tr.Report(trackerT0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
	f(0, "a:1", true)
	f(0, "x:1", false) // reporting is not being slow
	tr.Report(trackerAt(time.Hour), "y:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
	f(trackerValidity, "a:1", true) // y's report still stands
	f(time.Hour+trackerValidity, "a:1", false)
	tr.Report(trackerAt(2*trackerValidity), "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
	f(2*trackerValidity, "a:1", true)
	tr.Report(trackerAt(2*trackerValidity), "x:1", []reports.SlowPeer{})
	f(2*trackerValidity, "a:1", false)
}

// TestTrackerOutOfOrder pins reads and reports whose times go back a
// little, as concurrent requests that read the clock before taking the
// lock do: validity always follows the arrival passed in, even when a
// report is dated before the one it replaces.
func TestTrackerOutOfOrder(t *testing.T) {
	f := func(name string, rs []trackerReport, now time.Duration, want bool) {
		t.Helper()
		tr := NewTracker(trackerValidity)
		for _, r := range rs {
			tr.Report(trackerAt(r.at), r.reporter, r.peers)
			tr.Top(trackerAt(r.at), 5) // leave summaries cached at the report time
		}
		if got := tr.IsSlow(trackerAt(now), "a:1"); got != want {
			t.Errorf("%s: IsSlow(a:1) at +%v = %v, want %v", name, now, got, want)
		}
	}
	f("an earlier-dated report replaces a later one", []trackerReport{
		{10 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{5 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
	}, 5*time.Second+trackerValidity, false)
	f("an earlier-dated report replaces a later one, just valid", []trackerReport{
		{10 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{5 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
	}, 5*time.Second+trackerValidity-time.Nanosecond, true)
	f("an earlier-dated report from another reporter", []trackerReport{
		{10 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{5 * time.Second, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
		{10 * time.Second, "x:1", []reports.SlowPeer{}},
	}, 5*time.Second+trackerValidity, false)
	f("a read before the arrival sees the report", []trackerReport{
		{10 * time.Second, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
	}, 0, true)
}

func TestTrackerEach(t *testing.T) {
	tr := NewTracker(trackerValidity)
	applyReports(tr, []trackerReport{
		{0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1), trackerPeer("b:1", 1)}},
		{time.Hour, "y:1", []reports.SlowPeer{trackerPeer("a:1", 1)}},
	})
	f := func(now time.Duration, want map[string]int) {
		t.Helper()
		got := map[string]int{}
		tr.Each(trackerAt(now), func(node string, reporters int) { got[node] += reporters })
		if !maps.Equal(got, want) {
			t.Errorf("Each at +%v = %v, want %v", now, got, want)
		}
	}
	f(0, map[string]int{"a:1": 2, "b:1": 1})
	f(trackerValidity, map[string]int{"a:1": 1})
	f(time.Hour+trackerValidity, map[string]int{})
}

// TestTrackerConcurrent runs every method from several goroutines at once
// (meant for -race); each goroutine owns its reporters and reports at trackerT0,
// so the final state is known.
func TestTrackerConcurrent(t *testing.T) {
	const goroutines, rounds, nodes = 4, 200, 12
	tr := NewTracker(trackerValidity)
	name := func(i int) string { return fmt.Sprintf("10.0.0.%d:9866", i%nodes) }
	final := func(g, r int) []reports.SlowPeer { // what reporter r of g says in its last round
		return []reports.SlowPeer{trackerPeer(name(g+r+1), float64(r)), trackerPeer(name(g+2*r+2), float64(g))}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for round := range rounds {
				for r := g; r < nodes; r += goroutines {
					if round == rounds-1 {
						tr.Report(trackerT0, name(r), final(g, r))
					} else {
						tr.Report(trackerT0, name(r), []reports.SlowPeer{trackerPeer(name(round+r+1), 1)})
					}
				}
				tr.Top(trackerT0, 3)
				tr.IsSlow(trackerT0, name(round))
				tr.Each(trackerT0, func(string, int) {})
				tr.Expire(trackerAt(trackerValidity / 2))
				tr.Entries()
			}
		})
	}
	wg.Wait()
	ref := newNaiveTracker(trackerValidity)
	for g := range goroutines {
		for r := g; r < nodes; r += goroutines {
			ref.Report(trackerT0, name(r), final(g, r))
		}
	}
	if got, want := tr.Top(trackerT0, nodes), ref.Top(trackerT0, nodes); !reflect.DeepEqual(got, want) {
		t.Errorf("after concurrent use Top =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := tr.Entries(), ref.Entries(); got != want {
		t.Errorf("after concurrent use Entries = %d, want %d", got, want)
	}
	checkInvariants(t, tr)
}
