package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// poisonStore refuses every batch with the queryId "poison", as a
// database error would, and stores nothing of it.
type poisonStore struct{ MemoryStore }

func (s *poisonStore) Commit(ctx context.Context, events []Event) ([]Change, error) {
	for _, e := range events {
		if e.QueryID == "poison" {
			return nil, errors.New("poisoned")
		}
	}
	return s.MemoryStore.Commit(ctx, events)
}

// A batch shares one transaction; when it fails, each event is tried
// alone, so one bad event fails alone and the workload has the others.
func TestCommitBatch(t *testing.T) {
	s := &poisonStore{}
	p := loadPicker(t, s, Config{})
	batch := func(ids ...string) []*request {
		var b []*request
		for _, id := range ids {
			b = append(b, &request{ev: ev("hs:1", PreExec, id, "", at(0)), done: make(chan error, 1)})
		}
		p.commitBatch(context.Background(), b)
		return b
	}
	for _, r := range batch("a", "b", "c") {
		if err := <-r.done; err != nil {
			t.Fatal(err)
		}
	}
	if c := p.Counters(); c.Commits != 1 || c.Events != 3 {
		t.Fatalf("one batch of three: %+v", c)
	}
	b := batch("d", "poison", "e")
	for i, want := range []string{"", "poisoned", ""} {
		err := <-b[i].done
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("event %d: %v, want %q", i, err, want)
		}
	}
	if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 5 {
		t.Errorf("workload %+v, want 5 running", st)
	}
	if n := countRows(&s.MemoryStore); n != 5 {
		t.Errorf("%d rows, want 5", n)
	}
}

// uncertainStore stores the events of a commit but answers that it does
// not know whether it did, as a store whose COMMIT failed; loads fail
// while failLoads is set.
type uncertainStore struct {
	MemoryStore
	mu        sync.Mutex
	uncertain bool
	failLoads bool
}

func (s *uncertainStore) set(uncertain, failLoads bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uncertain, s.failLoads = uncertain, failLoads
}

func (s *uncertainStore) Commit(ctx context.Context, events []Event) ([]Change, error) {
	changes, err := s.MemoryStore.Commit(ctx, events)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.uncertain {
		return nil, fmt.Errorf("commit: %w: connection reset", ErrCommitUncertain)
	}
	return changes, err
}

func (s *uncertainStore) Snapshot(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	fail := s.failLoads
	s.mu.Unlock()
	if fail {
		return Snapshot{}, errors.New("store unreachable")
	}
	return s.MemoryStore.Snapshot(ctx)
}

// After a commit of unknown outcome the workload is what the store holds:
// reloaded at once, or before the next commit when the reload failed.
func TestUncertainCommit(t *testing.T) {
	s := &uncertainStore{}
	p := openPicker(t, s, Config{Servers: []string{"hs:1"}})
	running := func() int { return p.Servers(t0, nil)[0].Running }

	s.set(true, false)
	if err := p.Ingest(context.Background(), ev("hs:1", PreExec, "q1", "", at(0))); !errors.Is(err, ErrCommitUncertain) {
		t.Fatalf("uncertain commit: %v", err)
	}
	if n := running(); n != 1 {
		t.Fatalf("after the reload: %d running, want the stored 1", n)
	}

	s.set(true, true)
	if err := p.Ingest(context.Background(), ev("hs:1", PreExec, "q2", "", at(0))); !errors.Is(err, ErrCommitUncertain) {
		t.Fatalf("uncertain commit: %v", err)
	}
	if n := running(); n != 1 {
		t.Fatalf("reload failed: %d running, want the old 1", n)
	}
	if err := p.Ingest(context.Background(), ev("hs:1", PreExec, "q3", "", at(0))); err == nil ||
		!strings.Contains(err.Error(), "store unreachable") {
		t.Fatalf("commit on a stale workload that cannot reload: %v", err)
	}
	s.set(false, false)
	ingest(t, p, ev("hs:1", PreExec, "q4", "", at(0)))
	if n := running(); n != 3 {
		t.Fatalf("reloaded before the next commit: %d running, want q1, q2 and q4", n)
	}
}
