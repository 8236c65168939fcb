package datanode

import (
	"testing"
	"time"
)

// Reference: TestBpServiceActorScheduler.testOutlierReportScheduling and
// BPServiceActor.sendHeartBeat — heartbeat and report due at start; the
// next heartbeat an interval after the last began; the report rescheduled
// only once delivered.
func TestScheduler(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	const (
		hb     = 3 * time.Second
		report = 30 * time.Minute
		maxB   = 30 * time.Second
	)
	// step is one event of a table: at time at, do op, then expect the
	// wait until the next heartbeat and whether a Begin then carries the
	// report.
	type step struct {
		at         time.Duration
		op         string // "begin", "delivered", "failed"
		wantReport bool   // for "begin": what Begin returns
		wantNext   time.Duration
	}
	f := func(jitter float64, steps []step) {
		t.Helper()
		s := NewScheduler(t0, hb, report, maxB, func() float64 { return jitter })
		if got := s.Next(t0); got != 0 {
			t.Fatalf("Next at start = %v, want 0 (due at once)", got)
		}
		var lastReport bool
		for i, st := range steps {
			now := at(st.at)
			switch st.op {
			case "begin":
				lastReport = s.Begin(now)
				if lastReport != st.wantReport {
					t.Fatalf("step %d: Begin at %v = %v, want %v", i, st.at, lastReport, st.wantReport)
				}
			case "delivered":
				s.Delivered(now, lastReport)
			case "failed":
				s.Failed(now)
			default:
				t.Fatalf("BUG: op %q", st.op)
			}
			if got := s.Next(now); got != st.wantNext {
				t.Fatalf("step %d (%s at %v): Next = %v, want %v", i, st.op, st.at, got, st.wantNext)
			}
		}
	}

	// The plain schedule: the report goes on the first heartbeat, the next
	// one 30 min after it was delivered.
	f(0.5, []step{
		{0, "begin", true, hb},
		{100 * time.Millisecond, "delivered", false, hb - 100*time.Millisecond},
		{hb, "begin", false, hb},
		{hb + 10*time.Millisecond, "delivered", false, hb - 10*time.Millisecond},
		{report, "begin", false, hb}, // due at 30m + 100ms
		{report + time.Millisecond, "delivered", false, hb - time.Millisecond},
		{report + hb, "begin", true, hb},
		{report + hb + time.Second, "delivered", false, 2 * time.Second},
	})

	// A heartbeat that took longer than the interval: the next is due at once.
	f(0.5, []step{
		{0, "begin", true, hb},
		{4 * time.Second, "delivered", false, 0},
	})

	// A failed report stays due; the retries back off (jitter 0.5: ¾ of
	// 3s, 6s, 12s, 24s, then of the 30s cap) and the report rides on the
	// first heartbeat that gets through.
	f(0.5, []step{
		{0, "begin", true, hb},
		{hb, "failed", false, 2250 * time.Millisecond},
		{hb + 2250*time.Millisecond, "begin", true, hb},
		{hb + 3*time.Second, "failed", false, 4500 * time.Millisecond},
		{10 * time.Second, "begin", true, hb},
		{11 * time.Second, "failed", false, 9 * time.Second},
		{20 * time.Second, "begin", true, hb},
		{21 * time.Second, "failed", false, 18 * time.Second},
		{40 * time.Second, "begin", true, hb},
		{41 * time.Second, "failed", false, 22500 * time.Millisecond},
		{64 * time.Second, "begin", true, hb},
		{65 * time.Second, "delivered", false, 2 * time.Second},
		// Delivered: the failures are forgotten, the report is 30m off.
		{67 * time.Second, "begin", false, hb},
		{68 * time.Second, "failed", false, 2250 * time.Millisecond},
		{65*time.Second + report - time.Millisecond, "begin", false, hb},
		{65*time.Second + report, "begin", true, hb},
	})

	// A heartbeat without the report that fails does not make a report due.
	f(0, []step{
		{0, "begin", true, hb},
		{time.Second, "delivered", false, 2 * time.Second},
		{hb, "begin", false, hb},
		{hb + time.Second, "failed", false, 1500 * time.Millisecond},
		{hb + 2500*time.Millisecond, "begin", false, hb},
	})
}

func TestBackoff(t *testing.T) {
	f := func(failures int, u float64, want time.Duration) {
		t.Helper()
		if got := Backoff(failures, 3*time.Second, 30*time.Second, u); got != want {
			t.Fatalf("Backoff(%d, u=%v) = %v, want %v", failures, u, got, want)
		}
	}
	f(1, 0, 1500*time.Millisecond)
	f(1, 0.75, 2625*time.Millisecond)
	f(2, 0, 3*time.Second)
	f(3, 1, 12*time.Second)
	f(4, 0.5, 18*time.Second)
	f(5, 0, 15*time.Second) // capped at 30s
	f(5, 1, 30*time.Second)
	f(1000, 0.5, 22500*time.Millisecond)
	f(2, -1, 3*time.Second) // u is clamped to [0, 1]
	f(2, 7, 6*time.Second)
}

func TestNewSchedulerPanics(t *testing.T) {
	f := func(hb, report, maxB time.Duration) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatalf("NewScheduler(%v, %v, %v) did not panic", hb, report, maxB)
			}
		}()
		NewScheduler(time.Now(), hb, report, maxB, func() float64 { return 0 })
	}
	f(0, time.Minute, time.Minute)
	f(time.Second, 0, time.Minute)
	f(time.Minute, time.Minute, time.Second)
}

func TestSchedulerReported(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	s := NewScheduler(t0, 3*time.Second, time.Hour, 30*time.Second, func() float64 { return 0 })
	if s.Reported() {
		t.Fatal("Reported before any report")
	}
	s.Delivered(t0, false) // a bare heartbeat
	if s.Reported() || !s.Begin(t0.Add(3*time.Second)) {
		t.Fatal("a bare heartbeat counted as the report")
	}
	s.Delivered(t0.Add(3*time.Second), true)
	if !s.Reported() || s.Begin(t0.Add(6*time.Second)) {
		t.Fatal("a delivered report did not count")
	}
}
