package rolling

import (
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// t0 starts a 5-minute window: 2026-11-30 08:00:00 UTC, a multiple of 300 s
// after the Unix epoch.
var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

const w5 = HadoopDefaultWindow

func TestNewPanics(t *testing.T) {
	f := func(window time.Duration, windows int) {
		t.Helper()
		defer func() {
			t.Helper()
			msg, _ := recover().(string)
			if !strings.HasPrefix(msg, "BUG: ") {
				t.Errorf("New(%v, %d) panicked with %q, want a panic starting with \"BUG: \"", window, windows, msg)
			}
		}()
		New(window, windows)
	}
	f(0, HadoopDefaultWindows)
	f(-time.Second, HadoopDefaultWindows)
	f(HadoopDefaultWindow, 0)
	f(HadoopDefaultWindow, -1)
}

// TestWindowExpiry pins the validity rule at its boundaries: a window is
// valid while now − its start < windows × window.
// Reference: MutableRollingAverages.getStats (now − snapshot time < recordValidityMs).
func TestWindowExpiry(t *testing.T) {
	f := func(window time.Duration, windows int, sample, now time.Time, wantCount int64) {
		t.Helper()
		a := New(window, windows)
		a.AddAt(sample, "p", 7)
		got := a.Snapshot(now, 0)
		var count int64
		if len(got) == 1 {
			count = got[0].Count
		}
		if count != wantCount || len(got) > 1 {
			t.Errorf("window %v × %d: sample at %v, snapshot at %v: got %+v, want count %d",
				window, windows, sample, now, got, wantCount)
		}
		if wantLen := int(wantCount); a.Len() != wantLen {
			t.Errorf("window %v × %d: sample at %v, snapshot at %v: Len() = %d after Snapshot, want %d",
				window, windows, sample, now, a.Len(), wantLen)
		}
	}
	ns := time.Nanosecond
	// A sample at the start of its window: counted for exactly 36 × 5m.
	f(w5, 36, t0, t0, 1)
	f(w5, 36, t0, t0.Add(36*w5-ns), 1)
	f(w5, 36, t0, t0.Add(36*w5), 0)
	// A sample at the last instant of its window expires with its window.
	f(w5, 36, t0.Add(w5-ns), t0.Add(36*w5-ns), 1)
	f(w5, 36, t0.Add(w5-ns), t0.Add(36*w5), 0)
	// A sample one nanosecond before t0 lives in the window before t0's.
	f(w5, 36, t0.Add(-ns), t0.Add(35*w5-ns), 1)
	f(w5, 36, t0.Add(-ns), t0.Add(35*w5), 0)
	// One window: only the window holding now counts.
	f(w5, 1, t0, t0.Add(w5-ns), 1)
	f(w5, 1, t0, t0.Add(w5), 0)
	f(w5, 1, t0.Add(-ns), t0, 0)
	// Windows that do not divide a second, aligned to the epoch: 7 ns windows
	// start at multiples of 7 ns.
	e := time.Unix(0, 0)
	f(7*ns, 2, e.Add(7*ns), e.Add(20*ns), 1)
	f(7*ns, 2, e.Add(7*ns), e.Add(21*ns), 0)
	f(7*ns, 2, e.Add(13*ns), e.Add(20*ns), 1)
	f(7*ns, 2, e.Add(13*ns), e.Add(21*ns), 0)
	// Before the epoch, windows are still cut at multiples of window:
	// -1 ns lies in the window [-1s, 0).
	f(time.Second, 2, e.Add(-ns), e.Add(time.Second-ns), 1)
	f(time.Second, 2, e.Add(-ns), e.Add(time.Second), 0)
	f(time.Second, 2, e.Add(-time.Second), e.Add(time.Second-ns), 1)
	f(time.Second, 2, e.Add(-time.Second-ns), e.Add(0), 0)
	// A window after now (the clock stepped back) counts as young.
	f(w5, 36, t0.Add(10*w5), t0, 1)
}

// TestMinSamplesStrict pins that a key takes part only with strictly more
// than minSamples samples, and stays held when it does not.
// Reference: MutableRollingAverages.getStats (totalCount > minSamples).
func TestMinSamplesStrict(t *testing.T) {
	f := func(samples int, minSamples int64, wantEligible bool) {
		t.Helper()
		a := New(HadoopDefaultWindow, HadoopDefaultWindows)
		// Spread the samples over three windows: the rule is on their sum.
		for i := range samples {
			a.AddAt(t0.Add(time.Duration(i%3)*w5), "p", 2)
		}
		got := a.Snapshot(t0.Add(3*w5), minSamples)
		if eligible := len(got) == 1; eligible != wantEligible {
			t.Errorf("%d samples, minSamples %d: Snapshot = %+v, want eligible %v", samples, minSamples, got, wantEligible)
		}
		if len(got) == 1 && (got[0].Count != int64(samples) || got[0].Mean != 2) {
			t.Errorf("%d samples, minSamples %d: got %+v, want count %d mean 2", samples, minSamples, got[0], samples)
		}
		if a.Len() != 1 {
			t.Errorf("%d samples, minSamples %d: Len() = %d, want 1", samples, minSamples, a.Len())
		}
	}
	f(1000, 1000, false)
	f(1001, 1000, true)
	f(1000, 999, true)
	f(1, 0, true)
	f(1, 1, false)
	f(1, -1, true)
}

// TestMeanOverValidWindows checks that the mean is Σsum / Σcount over the
// valid windows only, weighted by count, not a mean of window means.
// Reference: MutableRollingAverages.getStats.
func TestMeanOverValidWindows(t *testing.T) {
	a := New(w5, 4)
	add := func(window int, v float64, n int) {
		for range n {
			a.AddAt(t0.Add(time.Duration(window)*w5+time.Minute), "p", v)
		}
	}
	add(0, 1000, 10) // expired at window 4
	add(1, 2, 3)
	add(3, 10, 1)
	add(4, 5, 2)
	got := a.Snapshot(t0.Add(4*w5+w5-time.Nanosecond), 0)
	want := []Average{{Key: "p", Mean: (3*2 + 10 + 2*5) / 6.0, Count: 6}}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("Snapshot = %+v, want %+v", got, want)
	}
}

// TestSnapshotDeletesDeadKeys checks departure 2: keys whose windows have
// all expired leave at Snapshot, and come back fresh.
func TestSnapshotDeletesDeadKeys(t *testing.T) {
	a := New(w5, 2)
	a.AddAt(t0, "a", 1)
	a.AddAt(t0.Add(w5), "b", 2)
	a.AddAt(t0.Add(2*w5), "c", 3)
	f := func(now time.Time, wantKeys string, wantLen int) {
		t.Helper()
		var keys []string
		for _, avg := range a.Snapshot(now, 0) {
			keys = append(keys, avg.Key)
		}
		if got := strings.Join(keys, ","); got != wantKeys || a.Len() != wantLen {
			t.Errorf("Snapshot(%v) keys %q, Len() %d; want %q, %d", now.Sub(t0), got, a.Len(), wantKeys, wantLen)
		}
	}
	if a.Len() != 3 {
		t.Fatalf("Len() = %d before any Snapshot, want 3", a.Len())
	}
	f(t0.Add(2*w5), "b,c", 2)
	f(t0.Add(3*w5), "c", 1)
	f(t0.Add(4*w5), "", 0)
	a.AddAt(t0.Add(4*w5), "a", 9)
	f(t0.Add(4*w5), "a", 1)
	if got := a.Snapshot(t0.Add(4*w5), 0); got[0].Mean != 9 || got[0].Count != 1 {
		t.Errorf("re-added key: got %+v, want mean 9 count 1", got[0])
	}
}

// TestIdleKeyNotRecounted checks departure 1: during an idle stretch a
// key's count and mean stay those of the windows it recorded. Hadoop would
// append the last active period again at every roll.
// Reference: MutableRollingAverages.rollOverAvgs, MutableStat.lastStat.
func TestIdleKeyNotRecounted(t *testing.T) {
	a := New(HadoopDefaultWindow, HadoopDefaultWindows)
	for range 10 {
		a.AddAt(t0, "p", 1)
	}
	for range 30 {
		a.AddAt(t0.Add(w5), "p", 3)
	}
	// Idle from window 2 on; window 0 counts until window 36 starts, the
	// last active window (1) until window 37 starts.
	for idle := 2; idle < 36; idle++ {
		now := t0.Add(time.Duration(idle) * w5)
		got := a.Snapshot(now, 0)
		if len(got) != 1 || got[0].Count != 40 || got[0].Mean != 100.0/40 {
			t.Fatalf("window %d: Snapshot = %+v, want count 40 mean %v", idle, got, 100.0/40)
		}
		// Hadoop's count here is 10 + 30 × (idle − 1): past 1 000 in window 35.
		if got := a.Snapshot(now, 1000); len(got) != 0 {
			t.Fatalf("window %d: eligible with minSamples 1000: %+v", idle, got)
		}
	}
	if got := a.Snapshot(t0.Add(36*w5), 0); len(got) != 1 || got[0].Count != 30 || got[0].Mean != 3 {
		t.Errorf("window 36: Snapshot = %+v, want window 1 alone: count 30 mean 3", got)
	}
	if got := a.Snapshot(t0.Add(37*w5), 0); len(got) != 0 || a.Len() != 0 {
		t.Errorf("window 37: Snapshot = %+v, Len() = %d; want nothing", got, a.Len())
	}
}

// TestStaleSampleDropped pins the rule that a sample windows or more
// windows older than its key's newest one is dropped.
func TestStaleSampleDropped(t *testing.T) {
	f := func(lag int, wantCount int64) {
		t.Helper()
		a := New(w5, 4)
		newest := t0.Add(10 * w5)
		a.AddAt(newest, "p", 1)
		a.AddAt(newest.Add(-time.Duration(lag)*w5), "p", 1)
		// Snapshot at an earlier time, where every window ≥ 3 counts.
		got := a.Snapshot(t0, 0)
		if len(got) != 1 || got[0].Count != wantCount {
			t.Errorf("sample %d windows behind the newest: Snapshot = %+v, want count %d", lag, got, wantCount)
		}
	}
	f(3, 2)
	f(4, 1)
	f(7, 1) // would reuse the newest window's slot: must not reset it
	f(8, 1)
}

func TestNonFiniteDropped(t *testing.T) {
	a := New(HadoopDefaultWindow, HadoopDefaultWindows)
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		a.AddAt(t0, "p", v)
	}
	if a.Len() != 0 {
		t.Fatalf("Len() = %d after only non-finite samples, want 0", a.Len())
	}
	a.AddAt(t0, "p", -2)
	a.AddAt(t0, "p", math.NaN())
	got := a.Snapshot(t0, 0)
	if len(got) != 1 || got[0].Count != 1 || got[0].Mean != -2 {
		t.Errorf("Snapshot = %+v, want one sample of -2", got)
	}
}

// TestSeriesSize guards the padding that keeps two keys off one cache line.
func TestSeriesSize(t *testing.T) {
	if got := unsafe.Sizeof(series{}); got != 128 {
		t.Errorf("unsafe.Sizeof(series{}) = %d, want 128", got)
	}
}

func TestDelete(t *testing.T) {
	a := New(time.Minute, 3)
	now := time.Unix(1_700_000_000, 0)
	for range 5 {
		a.AddAt(now, "dead:1", 40)
		a.AddAt(now, "live:1", 2)
	}
	if !a.Delete("dead:1") || a.Delete("dead:1") || a.Delete("never:1") {
		t.Fatal("Delete: want true once for a held key, then false")
	}
	if got := a.Snapshot(now, 0); len(got) != 1 || got[0].Key != "live:1" || a.Len() != 1 {
		t.Fatalf("after Delete: %+v, Len %d", got, a.Len())
	}
	// A sample after Delete starts afresh.
	a.AddAt(now, "dead:1", 10)
	got := a.Snapshot(now, 0)
	if len(got) != 2 || got[0] != (Average{Key: "dead:1", Mean: 10, Count: 1}) {
		t.Fatalf("after a new sample: %+v", got)
	}
}
