package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// notReadyStore is a MemoryStore that is not ready (ErrStoreNotReady)
// until ready is set, as a shared SQL store before the leader migrates it.
type notReadyStore struct {
	MemoryStore
	ready     atomic.Bool
	snapshots atomic.Int64
}

func (s *notReadyStore) check() error {
	if !s.ready.Load() {
		return fmt.Errorf("schema version 0, want 1: %w", ErrStoreNotReady)
	}
	return nil
}

func (s *notReadyStore) Snapshot(ctx context.Context) (Snapshot, error) {
	s.snapshots.Add(1)
	if err := s.check(); err != nil {
		return Snapshot{}, err
	}
	return s.MemoryStore.Snapshot(ctx)
}

func (s *notReadyStore) Commit(ctx context.Context, events []Event) ([]Change, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.MemoryStore.Commit(ctx, events)
}

// A Picker whose store is not ready refuses picks and events, without
// failing, and serves once the store is: Run tries the load again every
// second.
func TestStoreNotReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &notReadyStore{}
		p, err := New(testConfig(Config{Servers: []string{"hs:1"}}), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Refresh(context.Background()); !errors.Is(err, ErrStoreNotReady) {
			t.Fatalf("Refresh of a store not ready: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		synctest.Wait()
		if _, err := p.Pick(t0, nil); !errors.Is(err, ErrStoreNotReady) {
			t.Errorf("pick before the store is ready: %v", err)
		}
		if got := p.Ranked(t0, nil); len(got) != 0 {
			t.Errorf("ranked before the store is ready: %v", got)
		}
		if err := p.Ingest(ctx, ev("hs:1", PreExec, "q", "", at(0))); !errors.Is(err, ErrStoreNotReady) {
			t.Errorf("ingest before the store is ready: %v", err)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if n := s.snapshots.Load(); n < 5 || n > 7 {
			t.Errorf("%d loads in 5s of waiting, want one a second", n)
		}
		s.ready.Store(true)
		time.Sleep(notReadyRetry)
		synctest.Wait()
		if p.NotReady() != nil {
			t.Fatalf("a second after the store is ready: %v", p.NotReady())
		}
		if got, err := p.Pick(t0, nil); err != nil || got.Server != "hs:1" {
			t.Errorf("pick once ready: %+v, %v", got, err)
		}
		ingest(t, p, ev("hs:1", PreExec, "q", "", at(0)))
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// A store error that waiting does not cure fails Run.
func TestStoreFailsFirstLoad(t *testing.T) {
	s := &failingStore{err: errors.New("schema version 2 is newer than this slowpeer knows (1)")}
	p, err := New(testConfig(Config{}), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(context.Background()); err == nil || !errors.Is(err, s.err) {
		t.Fatalf("Run: %v, want the store's error", err)
	}
	if p.NotReady() != nil {
		t.Errorf("NotReady after a failure that is not ErrStoreNotReady: %v", p.NotReady())
	}
}

type failingStore struct {
	MemoryStore
	err error
}

func (s *failingStore) Snapshot(context.Context) (Snapshot, error) { return Snapshot{}, s.err }

// tooNewStore is a MemoryStore whose schema a newer program migrates
// once upgraded is set, as a shared SQL store during a rolling upgrade.
type tooNewStore struct {
	MemoryStore
	upgraded atomic.Bool
}

func (s *tooNewStore) Snapshot(ctx context.Context) (Snapshot, error) {
	if s.upgraded.Load() {
		return Snapshot{}, fmt.Errorf("schema version 2 is newer than this slowpeer knows (1): %w", ErrStoreTooNew)
	}
	return s.MemoryStore.Snapshot(ctx)
}

// A Picker that serves when a newer program migrates its store refuses
// picks and events from its next refresh on, with the reason, and keeps
// running.
func TestStoreTooNewWhileServing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &tooNewStore{}
		p, err := New(testConfig(Config{Servers: []string{"hs:1"}, RefreshInterval: 10 * time.Second}), s)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		synctest.Wait()
		if _, err := p.Pick(t0, nil); err != nil {
			t.Fatalf("pick before the upgrade: %v", err)
		}
		s.upgraded.Store(true)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if _, err := p.Pick(t0, nil); !errors.Is(err, ErrStoreTooNew) {
			t.Errorf("pick after a newer program migrated the store: %v", err)
		}
		if err := p.Ingest(ctx, ev("hs:1", PreExec, "q", "", at(0))); !errors.Is(err, ErrStoreTooNew) {
			t.Errorf("ingest after a newer program migrated the store: %v", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}
