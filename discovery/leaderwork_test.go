package discovery

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fakeStore is an EventStore that records what it was asked.
type fakeStore struct {
	prunes     []time.Time // the before of each Prune
	have, want int
	migrations int
	migrateErr error
}

func (s *fakeStore) Prune(_ context.Context, before time.Time) (int64, error) {
	s.prunes = append(s.prunes, before)
	return 1, nil
}

func (s *fakeStore) SchemaVersion(context.Context) (int, int, error) { return s.have, s.want, nil }

func (s *fakeStore) Migrate(context.Context) error {
	if s.migrateErr != nil {
		return s.migrateErr
	}
	s.migrations++
	s.have = s.want
	return nil
}

func testLeaderWork(t *testing.T, cfg LeaderWorkConfig) *LeaderWork {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	w, err := NewLeaderWork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLeaderWorkPrunes drives Step with synthetic time: a term prunes at
// its start and then every PruneEvery, only while leading, and each new
// term prunes at once.
func TestLeaderWorkPrunes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var leading atomic.Bool
	leading.Store(true)
	s := &fakeStore{}
	w := testLeaderWork(t, LeaderWorkConfig{Leading: leading.Load, Store: s, Retention: 24 * time.Hour})
	step := func(d time.Duration) {
		t.Helper()
		if err := w.Step(t.Context(), t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	step(0)
	step(30 * time.Minute)
	step(59 * time.Minute)
	step(time.Hour)
	leading.Store(false)
	step(3 * time.Hour) // a standby prunes nothing
	if w.InTerm() {
		t.Error("in a term while not leading")
	}
	leading.Store(true)
	step(3*time.Hour + time.Second) // a new term prunes at once
	want := []time.Time{t0.Add(-24 * time.Hour), t0.Add(-23 * time.Hour), t0.Add(-21*time.Hour + time.Second)}
	if !slices.Equal(s.prunes, want) {
		t.Errorf("pruned before\n %v\nwant\n %v", s.prunes, want)
	}
	if !w.InTerm() {
		t.Error("not in a term while leading")
	}
}

// TestLeaderWorkNoRetention: with Retention 0 nothing is pruned, and a
// lone service (Leading nil) leads.
func TestLeaderWorkNoRetention(t *testing.T) {
	s := &fakeStore{}
	w := testLeaderWork(t, LeaderWorkConfig{Store: s})
	if err := w.Step(t.Context(), time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if len(s.prunes) != 0 || !w.InTerm() {
		t.Errorf("pruned %v, in term %v; want nothing pruned, in a term", s.prunes, w.InTerm())
	}
}

// TestLeaderWorkMigrates: a term starts with the migration of a store
// behind its schema; a failed migration starts no term and the next Step
// tries again; a store at its version is not migrated.
func TestLeaderWorkMigrates(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	s := &fakeStore{have: 1, want: 2, migrateErr: errors.New("disk full")}
	reloads := 0
	w := testLeaderWork(t, LeaderWorkConfig{Store: s, Migrate: true, Retention: time.Hour,
		Reloaded: func(context.Context) error { reloads++; return nil }})
	if err := w.Step(t.Context(), t0); err == nil || w.InTerm() || len(s.prunes) != 0 {
		t.Fatalf("failed migration: err %v, in term %v, prunes %d; want an error, no term, no prune", err, w.InTerm(), len(s.prunes))
	}
	s.migrateErr = nil
	if err := w.Step(t.Context(), t0.Add(time.Second)); err != nil || !w.InTerm() {
		t.Fatalf("second Step: %v, in term %v", err, w.InTerm())
	}
	if s.migrations != 1 || reloads != 1 || len(s.prunes) != 1 {
		t.Errorf("migrations %d, reloads %d, prunes %d; want 1, 1, 1", s.migrations, reloads, len(s.prunes))
	}
	w.endTerm()
	if err := w.Step(t.Context(), t0.Add(2*time.Second)); err != nil || s.migrations != 1 || reloads != 1 {
		t.Errorf("a term on a store at its version: %v, migrations %d, reloads %d; want 1, 1", err, s.migrations, reloads)
	}
}

// TestLeaderWorkPublishes runs the term's publisher on an in-memory
// ZooKeeper: it starts with the term, takes the namespace over, hears
// Changed, and leaves with the term, its znodes deleted.
func TestLeaderWorkPublishes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := "hs1:10000", "hs2:10000"
		var el eligibleList
		el.set(a)
		z := newFakeZK(fakeSession)
		pcfg := testPublisherConfig(el.get)
		pcfg.Interval = time.Hour // only Changed makes it look again
		var leading atomic.Bool
		changed := make(chan struct{}, 1)
		w := testLeaderWork(t, LeaderWorkConfig{Leading: leading.Load, Publish: &pcfg, Changed: changed})
		w.newPublisher = func(cfg PublisherConfig) (*Publisher, error) {
			if !cfg.TakeOver || cfg.Leading == nil {
				t.Errorf("term publisher without the leader's check: TakeOver %v", cfg.TakeOver)
			}
			return newPublisher(cfg, z), nil
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- w.Run(ctx) }()
		synctest.Wait()
		if got := z.takeWrites(); len(got) != 0 {
			t.Fatalf("a standby wrote %q", got)
		}
		leading.Store(true)
		time.Sleep(DefaultLeaderCheckEvery)
		synctest.Wait()
		if got := z.takeWrites(); !slices.Equal(got, []string{"create /pub", "create " + znodeOf(t, a, "0000000000")}) {
			t.Fatalf("the leader's first writes: %q", got)
		}
		el.set(b)
		changed <- struct{}{}
		synctest.Wait()
		if got := z.takeWrites(); !slices.Equal(got, []string{"create " + znodeOf(t, b, "0000000001"), "delete " + znodeOf(t, a, "0000000000")}) {
			t.Fatalf("after Changed: %q", got)
		}
		leading.Store(false)
		time.Sleep(DefaultLeaderCheckEvery)
		synctest.Wait()
		if got := z.takeWrites(); !slices.Equal(got, []string{"delete " + znodeOf(t, b, "0000000001")}) {
			t.Fatalf("the term's end: %q", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if w.Publisher() != nil || w.InTerm() {
			t.Error("a publisher outlived its term")
		}
	})
}

func TestNewLeaderWorkRefuses(t *testing.T) {
	f := func(name string, cfg LeaderWorkConfig) {
		t.Helper()
		if _, err := NewLeaderWork(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	f("negative retention", LeaderWorkConfig{Store: &fakeStore{}, Retention: -time.Hour})
	f("pruning without a store", LeaderWorkConfig{Retention: time.Hour})
	f("migrating without a store", LeaderWorkConfig{Migrate: true})
	f("a publisher without a namespace", LeaderWorkConfig{Publish: &PublisherConfig{Servers: []string{"zk:2181"}, Eligible: func() []string { return nil }}})
}
