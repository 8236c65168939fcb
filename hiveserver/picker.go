package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Picker ingests hook events into a Store and picks HiveServers from the
// workload they describe. It is safe for concurrent use. Build it with
// New, load its workload with Refresh (or let Run do it), and Run it:
// Ingest is answered only while Run runs.
//
// The workload is held in memory, loaded from the store and updated after
// each commit, so Pick and Servers do no I/O.
type Picker struct {
	cfg      Config
	costs    costs
	store    Store
	log      *slog.Logger
	now      func() time.Time
	randIntN func(n int) int
	sources  []Source

	// mu guards w and notReady. The committer writes w after each
	// commit, Refresh when it reloads; lists and picks read it.
	mu       sync.RWMutex
	w        *workload
	notReady error // the store's ErrStoreNotReady or ErrStoreTooNew, until a load succeeds

	// storeMu is held around every use of the store, from a commit to
	// the update of w that follows it, so that a reload never falls
	// between the two.
	storeMu sync.Mutex
	loaded  bool // a load succeeded once
	stale   bool // w may differ from the store: reload before committing

	// The committer, Run (ingest.go).
	queue    chan *request
	started  atomic.Bool
	stopping chan struct{} // closed when Run's ctx ends: no more queueing
	done     chan struct{} // closed when Run has returned

	maxSendBytes int64 // MaxSendBytes; tests lower it

	events, commits, picks, picksFailed, refused atomic.Uint64
}

// New returns a Picker of cfg on store, with an empty workload; it does no
// I/O and starts nothing. A nil store is a programmer error.
func New(cfg Config, store Store) (*Picker, error) {
	if store == nil {
		panic("BUG: hiveserver.New with a nil Store")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hiveserver config: %w", err)
	}
	p := &Picker{
		cfg:      cfg,
		costs:    costsOf(cfg),
		store:    store,
		log:      cfg.Logger,
		now:      cfg.Now,
		randIntN: cfg.RandIntN,
		w:        newWorkload(Snapshot{}),
		queue:    make(chan *request, queueLen),
		stopping: make(chan struct{}),
		done:     make(chan struct{}),

		maxSendBytes: MaxSendBytes,
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.randIntN == nil {
		p.randIntN = rand.IntN
	}
	if len(cfg.Servers) > 0 {
		p.sources = append(p.sources, Static(slices.Clone(cfg.Servers)))
	}
	p.sources = append(p.sources, cfg.Sources...)
	return p, nil
}

// Refresh replaces the workload with a fresh snapshot of the store. Call it
// once before serving, so that picks count the statements stored before
// a restart from the start; a store not ready (ErrStoreNotReady) makes
// Pick and Ingest refuse until a load succeeds, which Run retries; a Picker sees the events other service
// replicas store in a shared store only after a Refresh (Run calls it
// every Config.RefreshInterval). It waits for a commit under way. Once Run
// has returned, it returns ErrClosed.
func (p *Picker) Refresh(ctx context.Context) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	return p.refresh(ctx)
}

// refresh is Refresh with storeMu held. A store not ready
// (ErrStoreNotReady) before the first load, or one whose schema a newer
// program migrated (ErrStoreTooNew) at any time, makes the Picker refuse
// picks and events until a load succeeds.
func (p *Picker) refresh(ctx context.Context) error {
	snap, err := p.store.Snapshot(ctx)
	if err != nil {
		err = fmt.Errorf("read the HiveServer workload: %w", err)
		if !p.loaded && errors.Is(err, ErrStoreNotReady) || errors.Is(err, ErrStoreTooNew) {
			p.mu.Lock()
			p.notReady = err
			p.mu.Unlock()
		}
		return err
	}
	w := newWorkload(snap)
	p.mu.Lock()
	p.w, p.notReady = w, nil
	p.mu.Unlock()
	p.loaded, p.stale = true, false
	return nil
}

// expire moves the statements that outlived the query timeout at now to
// the lost ones, and says so in the log.
func (p *Picker) expire(now time.Time) {
	p.mu.Lock()
	moved := p.w.expire(now.UnixMilli(), p.costs)
	p.mu.Unlock()
	for _, server := range slices.Sorted(maps.Keys(moved)) {
		p.log.Warn("HiveServer statements lost: started longer ago than the query timeout and never ended",
			"server", server, "statements", moved[server], "timeout", p.cfg.QueryTimeout)
	}
}

// Counters are totals since the Picker started, for metrics.
type Counters struct {
	// Events counts the events Ingest stored (including repeats that
	// changed nothing).
	Events uint64
	// Commits counts the transactions that stored them (group commit
	// makes it less than Events under load).
	Commits uint64
	// Picks counts the picks that returned a HiveServer.
	Picks uint64
	// PicksFailed counts the picks with none eligible.
	PicksFailed uint64
	// EventsRefused counts the events of unknown HiveServers refused
	// under Config.KnownServersOnly.
	EventsRefused uint64
}

// Counters returns the Picker's counters.
func (p *Picker) Counters() Counters {
	return Counters{Events: p.events.Load(), Commits: p.commits.Load(), Picks: p.picks.Load(),
		PicksFailed: p.picksFailed.Load(), EventsRefused: p.refused.Load()}
}

// NotReady returns why the Picker refuses picks and events (the store is
// not ready, ErrStoreNotReady, and no load has succeeded yet; or its
// schema is newer than this program knows, ErrStoreTooNew), or nil.
func (p *Picker) NotReady() error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.notReady
}

// Lost returns how many statements, on all HiveServers known or not, are
// lost at now: started longer than Config.QueryTimeout ago, never ended.
func (p *Picker) Lost(now time.Time) int {
	p.expire(now)
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := 0
	for _, s := range p.w.servers {
		n += len(s.lost)
	}
	return n
}
