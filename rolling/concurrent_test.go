package rolling

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConcurrentAddAndSnapshot races AddAt from several goroutines against
// Snapshots that delete the very keys being recorded: at the start of every
// round all keys hold only the previous round's window, which has expired,
// so the Snapshots kill them while the adders record into them. No sample of
// the round may be lost, and nothing may race (run with -race).
func TestConcurrentAddAndSnapshot(t *testing.T) {
	const (
		adders  = 4
		keys    = 64
		samples = 25 // per adder, per key, per round
		windows = 2
	)
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	a := New(time.Second, windows)
	names := make([]string, keys)
	for k := range names {
		names[k] = fmt.Sprintf("10.0.0.%d:9866", k)
		a.AddAt(t0, names[k], 1)
	}
	for round := 1; round <= rounds; round++ {
		now := t0.Add(time.Duration(round) * (windows + 1) * time.Second)
		var wg sync.WaitGroup
		var done atomic.Bool
		started := make(chan struct{})
		wg.Go(func() {
			close(started) // the adders start with the first Snapshot
			for !done.Load() {
				a.Snapshot(now, 0)
				a.Len()
			}
		})
		var adding sync.WaitGroup
		for g := range adders {
			adding.Go(func() {
				<-started
				for i := range samples * keys {
					a.AddAt(now, names[(i+17*g)%keys], 3)
				}
			})
		}
		adding.Wait()
		done.Store(true)
		wg.Wait()

		got := a.Snapshot(now, -1)
		if len(got) != keys || a.Len() != keys {
			t.Fatalf("round %d: %d keys in Snapshot, Len() = %d; want %d", round, len(got), a.Len(), keys)
		}
		for _, avg := range got {
			if avg.Count != adders*samples || avg.Mean != 3 {
				t.Fatalf("round %d: %+v, want count %d mean 3", round, avg, adders*samples)
			}
		}
	}
}

// TestAddIntoDyingSeries walks AddAt through the moment between Snapshot
// marking a series dead and deleting it, which the concurrent test reaches
// only by chance: the sample must land in a fresh series.
func TestAddIntoDyingSeries(t *testing.T) {
	a := New(time.Second, 1)
	a.AddAt(t0, "p", 1)
	later := t0.Add(time.Second)
	s, _ := a.keys.Load("p")
	if _, count := s.(*series).total(a.windowOf(later), a.windows); count != 0 {
		t.Fatalf("total = %d, want 0: the series should be dead", count)
	}
	a.AddAt(later, "p", 5) // finds the dead series with Load, then LoadOrStore
	now, _ := a.keys.Load("p")
	if now == s {
		t.Fatal("the dead series is still stored")
	}
	got := a.Snapshot(later, 0)
	if len(got) != 1 || got[0].Count != 1 || got[0].Mean != 5 || a.Len() != 1 {
		t.Errorf("Snapshot = %+v, Len() = %d; want the one sample of 5, one key", got, a.Len())
	}
}
