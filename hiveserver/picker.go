package hiveserver

import (
	"context"
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
// NewPicker; Close it before its Store.
//
// The workload is held in memory, loaded from the store at start and
// updated after each commit, so Pick and Servers do no I/O.
type Picker struct {
	cfg      Config
	costs    costs
	store    *Store
	log      *slog.Logger
	now      func() time.Time
	randIntN func(n int) int
	sources  []Source

	// mu guards w. Ingest's committer writes it after each commit; lists
	// and picks read it.
	mu sync.RWMutex
	w  *workload

	// The committer goroutine (committer.go).
	queue     chan *request
	refreshes chan chan error
	closing   chan struct{}
	closeOnce sync.Once
	done      chan struct{}
	stale     bool // only the committer reads and writes it

	maxSendBytes int64 // MaxSendBytes; tests lower it

	events, commits, picks, picksFailed atomic.Uint64
}

// NewPicker loads the workload from store and starts the goroutine that
// commits events; Close stops it.
func NewPicker(ctx context.Context, store *Store, cfg Config) (*Picker, error) {
	p, err := newPicker(ctx, store, cfg)
	if err != nil {
		return nil, err
	}
	go p.run()
	return p, nil
}

// newPicker is NewPicker without the committer, for tests that drive
// commitBatch themselves.
func newPicker(ctx context.Context, store *Store, cfg Config) (*Picker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hiveserver config: %w", err)
	}
	snap, err := store.load(ctx)
	if err != nil {
		return nil, err
	}
	p := &Picker{
		cfg:       cfg,
		costs:     costsOf(cfg),
		store:     store,
		log:       cfg.Logger,
		now:       cfg.Now,
		randIntN:  cfg.RandIntN,
		w:         newWorkload(snap),
		queue:     make(chan *request, queueLen),
		refreshes: make(chan chan error),
		closing:   make(chan struct{}),
		done:      make(chan struct{}),

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
}

// Counters returns the Picker's counters.
func (p *Picker) Counters() Counters {
	return Counters{Events: p.events.Load(), Commits: p.commits.Load(), Picks: p.picks.Load(), PicksFailed: p.picksFailed.Load()}
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
