package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestIngestRefuses(t *testing.T) {
	p := loadPicker(t, &MemoryStore{}, Config{})
	stop := runPicker(t, p)
	bad := ev("hs:1", "START", "q", "", at(0))
	if err := p.Ingest(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "field hook") {
		t.Errorf("invalid event: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Ingest(ctx, ev("hs:1", PreExec, "q", "", at(0))); !errors.Is(err, context.Canceled) {
		// The queue has room, so the event may have gone in; either way
		// the caller learns nothing was promised.
		if err != nil {
			t.Errorf("cancelled context: %v", err)
		}
	}
	stop()
	if err := p.Ingest(context.Background(), ev("hs:1", PreExec, "q2", "", at(0))); !errors.Is(err, ErrClosed) {
		t.Errorf("after Run: %v", err)
	}
	if err := p.Refresh(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Refresh after Run: %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "BUG") {
			t.Errorf("second Run: %v, want a BUG panic", r)
		}
	}()
	p.Run(context.Background())
}

// An event ingested before Run starts waits for it, and Run loads the
// workload first when nobody did.
func TestIngestBeforeRun(t *testing.T) {
	s := &MemoryStore{}
	if _, err := s.Commit(context.Background(), []Event{ev("hs:1", PreExec, "old", "", at(0))}); err != nil {
		t.Fatal(err)
	}
	p, err := New(testConfig(Config{}), s)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Ingest(context.Background(), ev("hs:1", PreExec, "new", "", at(0))) }()
	runPicker(t, p)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 2 {
		t.Fatalf("%+v, want the stored and the new statement running", st)
	}
}

// blockingStore holds every Commit until release is closed or the
// commit's context ends.
type blockingStore struct {
	MemoryStore
	started chan struct{}
	release chan struct{}
}

func (s *blockingStore) Commit(ctx context.Context, events []Event) ([]Change, error) {
	s.started <- struct{}{}
	select {
	case <-s.release:
		return s.MemoryStore.Commit(ctx, events)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// When Run's ctx ends, the transaction under way may still commit within
// finishTimeout (its callers get their answer); queued events get
// ErrClosed; Run returns once all that is done.
func TestRunStop(t *testing.T) {
	for _, finishes := range []bool{true, false} {
		t.Run(fmt.Sprintf("finishes=%v", finishes), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &blockingStore{started: make(chan struct{}, 1), release: make(chan struct{})}
				p := loadPicker(t, s, Config{})
				ctx, cancel := context.WithCancel(context.Background())
				ran := make(chan error, 1)
				go func() { ran <- p.Run(ctx) }()
				first, queued := make(chan error, 1), make(chan error, 1)
				go func() { first <- p.Ingest(context.Background(), ev("hs:1", PreExec, "q1", "", at(0))) }()
				<-s.started
				go func() { queued <- p.Ingest(context.Background(), ev("hs:1", PreExec, "q2", "", at(0))) }()
				synctest.Wait()
				start := time.Now()
				cancel()
				if finishes {
					time.Sleep(time.Second)
					close(s.release)
				}
				err := <-first
				took := time.Since(start)
				switch {
				case finishes && (err != nil || took != time.Second):
					t.Errorf("the commit under way: %v after %v, want nil after 1s", err, took)
				case !finishes && (!errors.Is(err, context.Canceled) || took != finishTimeout):
					t.Errorf("the commit under way: %v after %v, want cut off after %v", err, took, finishTimeout)
				}
				if err := <-queued; !errors.Is(err, ErrClosed) {
					t.Errorf("queued event: %v, want ErrClosed", err)
				}
				if err := <-ran; err != nil {
					t.Errorf("Run: %v", err)
				}
			})
		})
	}
}

// Two service replicas on one store: each sees the other's events after
// a Refresh.
func TestRefreshSharedStore(t *testing.T) {
	s := &MemoryStore{}
	p1, p2 := openPicker(t, s, Config{}), openPicker(t, s, Config{})
	ingest(t, p1, ev("hs:1", PreExec, "q1", "", at(0)), ev("hs:1", PreExec, "q2", "", at(0)))
	ingest(t, p2, ev("hs:1", PostExec, "q1", "", at(time.Second)))
	for i, p := range []*Picker{p1, p2} {
		if err := p.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := p.Servers(t0, nil); len(st) != 1 || st[0].Running != 1 {
			t.Errorf("replica %d: %+v, want q2 alone running", i+1, st)
		}
	}
}

// With RefreshInterval a replica reloads the shared store by itself.
func TestRefreshInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &MemoryStore{}
		p1 := loadPicker(t, s, Config{})
		p2 := loadPicker(t, s, Config{RefreshInterval: 10 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, p := range []*Picker{p1, p2} {
			wg.Go(func() { p.Run(ctx) })
		}
		ingest(t, p1, ev("hs:1", PreExec, "q1", "", at(0)))
		running := func(p *Picker) int {
			if st := p.Servers(t0, nil); len(st) == 1 {
				return st[0].Running
			}
			return 0
		}
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		if n := running(p2); n != 0 {
			t.Errorf("before the interval the replica shows %d running", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if n1, n2 := running(p1), running(p2); n1 != 1 || n2 != 1 {
			t.Errorf("after the interval: writer %d, replica %d running; want 1 and 1", n1, n2)
		}
		cancel()
		wg.Wait()
	})
	if err := testConfig(Config{RefreshInterval: -time.Second}).Validate(); err == nil {
		t.Fatal("a negative RefreshInterval is valid")
	}
}
