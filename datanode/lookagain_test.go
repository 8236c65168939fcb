package datanode

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// TestSchedulerNamed: a report that names a peer slow which the report
// before it did not brings the next report one span closer; a peer named
// again, a span of 0 or a span that is not sooner change nothing.
func TestSchedulerNamed(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	const (
		report = 5 * time.Minute
		span   = 3 * time.Minute
	)
	slow := func(nodes ...string) []reports.SlowPeer {
		var ps []reports.SlowPeer
		for _, n := range nodes {
			ps = append(ps, reports.SlowPeer{Node: n})
		}
		return ps
	}
	// Each step is a report delivered at the time of the last one's due
	// time, naming slow, and the wait until the next one.
	steps := []struct {
		slow []reports.SlowPeer
		span time.Duration
		want time.Duration
	}{
		{nil, span, report},              // nothing named
		{slow("a:1"), span, span},        // a newly named: look again early
		{slow("a:1"), span, report},      // a again: back on the schedule
		{slow("a:1", "b:1"), span, span}, // b is new
		{slow("b:1"), span, report},      // a dropped, nothing new
		{slow("a:1"), span, span},        // a named again after a gap
		{nil, span, report},
		{slow("c:1"), 0, report},          // the rule off
		{slow("d:1"), 2 * report, report}, // never later than the schedule
	}
	s := NewScheduler(t0, 3*time.Second, report, 30*time.Second, func() float64 { return 0 })
	now := t0
	for i, st := range steps {
		if !s.Begin(now) {
			t.Fatalf("step %d: no report due at %v", i, now.Sub(t0))
		}
		s.Delivered(now, true)
		s.Named(now, st.slow, st.span)
		if got := s.NextReport().Sub(now); got != st.want {
			t.Fatalf("step %d (slow %v, span %v): next report %v after, want %v", i, st.slow, st.span, got, st.want)
		}
		if s.Begin(s.NextReport().Add(-time.Second)) {
			t.Fatalf("step %d: report due before NextReport", i)
		}
		now = s.NextReport()
	}
}

// TestActorLooksAgain: the heartbeat loop applies the rule. A peer named
// in the first report brings the second one lookAgain after it; named
// again there, the third follows a whole report interval later.
func TestActorLooksAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		send := &fakeSender{}
		detect := func(time.Time) (Detection, error) {
			return Detection{SlowPeers: []reports.SlowPeer{{Node: "10.0.0.3:9866"}}}, nil
		}
		a := testActor(send, detect, 5*time.Minute, &counters{})
		a.lookAgain = 3 * time.Minute
		runActors(9*time.Minute, a)
		var at []time.Duration
		for _, c := range send.Calls() {
			if c.report {
				at = append(at, c.at.Sub(start))
			}
		}
		want := []time.Duration{0, 3 * time.Minute, 8 * time.Minute}
		if !slices.Equal(at, want) {
			t.Fatalf("reports at %v, want %v", at, want)
		}
	})
}
