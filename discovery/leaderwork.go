package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Leader work defaults.
const (
	// DefaultPruneEvery is how often the leader prunes the hook event
	// store.
	DefaultPruneEvery = time.Hour
	// DefaultLeaderCheckEvery is how often LeaderWork.Run asks whether
	// this replica leads: the longest a new leader waits before it
	// starts its work, and an old one before it stops publishing (it
	// writes nothing meanwhile: every write asks Leading).
	DefaultLeaderCheckEvery = time.Second
)

// EventStore is what the leader's work asks of the Hive hook event store;
// *sqlstore.Store has it.
type EventStore interface {
	// Prune deletes what ended before before and returns how many rows
	// went.
	Prune(ctx context.Context, before time.Time) (int64, error)
	// SchemaVersion returns the schema version the store has and the one
	// this binary wants.
	SchemaVersion(ctx context.Context) (have, want int, err error)
	// Migrate brings the schema to the wanted version.
	Migrate(ctx context.Context) error
}

// LeaderWorkConfig is the configuration of a LeaderWork.
type LeaderWorkConfig struct {
	// Leading reports whether this replica leads now (Replica.Leading);
	// nil: it always does (a lone service is its own leader).
	Leading func() bool
	// Store is the hook event store to prune, and with Migrate to
	// migrate; nil: none.
	Store EventStore
	// Migrate makes each term start with the migration of Store's schema:
	// set it for a store the replicas share, whose schema is the
	// leader's to migrate.
	Migrate bool
	// Reloaded, when set, is called after a migration that changed the
	// schema (the picker's Refresh), so that this replica serves at once
	// rather than at its picker's next try.
	Reloaded func(ctx context.Context) error
	// Retention is how long the store keeps hook events; older ones are
	// pruned. 0: never prune.
	Retention time.Duration
	// PruneEvery is how often the store is pruned while leading (default
	// DefaultPruneEvery); each term prunes at its start.
	PruneEvery time.Duration
	// Publish, when set, is the publisher of the balanced HiveServer2
	// namespace: each term runs a new Publisher of it, with Leading and
	// TakeOver set from Leading.
	Publish *PublisherConfig
	// Changed tells the term's publisher that the pick may have changed
	// (a watcher saw HiveServers come or go): each value received calls
	// Publisher.Notify. Nil: never.
	Changed <-chan struct{}
	// CheckEvery is how often Run steps (default DefaultLeaderCheckEvery).
	CheckEvery time.Duration
	// Logger receives what the work did and its trouble; nil means
	// slog.Default().
	Logger *slog.Logger
}

// LeaderWork is what one replica alone does, the leader of the service
// replicas, else the only one: migrate the schema of a shared hook event
// store, publish the balanced HiveServer2 namespace and prune the store.
// Its work runs in terms: a term starts at the first Step that finds this
// replica leading, and ends at the first that does not. Every write asks
// Leading first.
//
// Step does the work due at a time; Run steps until its context ends.
// A LeaderWork is not safe for concurrent use: one goroutine steps it
// (Run, or a test). Build it with NewLeaderWork.
type LeaderWork struct {
	cfg LeaderWorkConfig
	log *slog.Logger
	// newPublisher is NewPublisher (tests bring a ZooKeeper of their own).
	newPublisher func(PublisherConfig) (*Publisher, error)

	inTerm    bool
	lastPrune time.Time // of this term; zero before its first
	publisher *Publisher
	stopPub   context.CancelFunc
	pubDone   sync.WaitGroup
}

// NewLeaderWork returns a LeaderWork for cfg, or the error of its
// publisher's configuration. It starts nothing: Step and Run do.
func NewLeaderWork(cfg LeaderWorkConfig) (*LeaderWork, error) {
	if cfg.PruneEvery <= 0 {
		cfg.PruneEvery = DefaultPruneEvery
	}
	if cfg.CheckEvery <= 0 {
		cfg.CheckEvery = DefaultLeaderCheckEvery
	}
	if cfg.Retention < 0 {
		return nil, fmt.Errorf("leader work: negative retention %v", cfg.Retention)
	}
	if (cfg.Migrate || cfg.Retention > 0) && cfg.Store == nil {
		return nil, errors.New("leader work: migrating or pruning needs a store")
	}
	if cfg.Publish != nil {
		if err := cfg.Publish.Validate(); err != nil {
			return nil, fmt.Errorf("publish HiveServers: %w", err)
		}
	}
	w := &LeaderWork{cfg: cfg, log: cfg.Logger, newPublisher: NewPublisher}
	if w.log == nil {
		w.log = slog.Default()
	}
	return w, nil
}

// leading asks cfg.Leading, if set.
func (w *LeaderWork) leading() bool { return w.cfg.Leading == nil || w.cfg.Leading() }

// Step does the leader's work due at now. When this replica does not
// lead, it ends the running term: it stops the term's publisher (which
// removes its znodes) and waits for it. When it leads and no term runs,
// it starts one: it migrates the store (with Migrate), then starts the
// term's publisher, which runs until the term ends or ctx does. Then,
// leading, it prunes the store when PruneEvery has passed since the
// term's last prune (the first Step of a term prunes at once).
//
// It returns the error of a migration, after which the term has not
// started: the next Step tries again. A failed prune is logged, and tried
// again PruneEvery later.
func (w *LeaderWork) Step(ctx context.Context, now time.Time) error {
	if !w.leading() {
		w.endTerm()
		return nil
	}
	if !w.inTerm {
		if err := w.migrate(ctx); err != nil {
			return err
		}
		if err := w.publish(ctx); err != nil {
			return err
		}
		w.inTerm, w.lastPrune = true, time.Time{}
	}
	if w.cfg.Retention > 0 && (w.lastPrune.IsZero() || now.Sub(w.lastPrune) >= w.cfg.PruneEvery) {
		w.lastPrune = now
		w.prune(ctx, now)
	}
	return nil
}

// Run steps at once and then every CheckEvery until ctx ends, passes
// what Changed receives to the running publisher, then ends the term and
// returns nil once everything it started has stopped. A failed Step is
// logged and tried again at the next.
func (w *LeaderWork) Run(ctx context.Context) error {
	defer w.endTerm()
	tick := time.NewTicker(w.cfg.CheckEvery)
	defer tick.Stop()
	for {
		if err := w.Step(ctx, time.Now()); err != nil && ctx.Err() == nil {
			w.log.Warn("leader work failed; again at the next check", slog.Duration("every", w.cfg.CheckEvery), slog.Any("err", err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-w.cfg.Changed:
			if w.publisher != nil {
				w.publisher.Notify()
			}
		}
	}
}

// InTerm reports whether a term runs: the last Step found this replica
// leading and started (or kept) its work.
func (w *LeaderWork) InTerm() bool { return w.inTerm }

// Publisher returns the running term's publisher, nil when none runs.
func (w *LeaderWork) Publisher() *Publisher { return w.publisher }

// migrate migrates the store's schema when the term starts with it. A
// schema newer than this binary knows is an error, which the picker
// reports too.
func (w *LeaderWork) migrate(ctx context.Context) error {
	if !w.cfg.Migrate || !w.leading() {
		return nil
	}
	have, want, err := w.cfg.Store.SchemaVersion(ctx)
	if err == nil && have == want {
		return nil // the usual start: nothing to do, nothing to say
	}
	start := time.Now()
	if err := w.cfg.Store.Migrate(ctx); err != nil {
		return fmt.Errorf("leader: %w", err)
	}
	w.log.Info("leader migrated the hive event store's schema", slog.String("store", fmt.Sprint(w.cfg.Store)),
		slog.Int("from", have), slog.Int("to", want), slog.Duration("took", time.Since(start).Round(time.Millisecond)))
	if w.cfg.Reloaded != nil {
		if err := w.cfg.Reloaded(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("load the HiveServer workload after the migration", slog.Any("err", err))
		}
	}
	return nil
}

// publish starts the term's publisher, if any.
func (w *LeaderWork) publish(ctx context.Context) error {
	if w.cfg.Publish == nil {
		return nil
	}
	cfg := *w.cfg.Publish
	cfg.Leading, cfg.TakeOver = w.cfg.Leading, w.cfg.Leading != nil
	p, err := w.newPublisher(cfg)
	if err != nil {
		return fmt.Errorf("publish HiveServers: %w", err)
	}
	pctx, stop := context.WithCancel(ctx)
	w.publisher, w.stopPub = p, stop
	w.pubDone.Go(func() {
		if err := p.Run(pctx); err != nil {
			// Stopping: the znodes go with the session anyway.
			w.log.Warn("unpublish HiveServers", slog.Any("err", err))
		}
	})
	return nil
}

// endTerm stops the term's publisher, if any, and waits for it.
func (w *LeaderWork) endTerm() {
	if w.stopPub != nil {
		w.stopPub()
		w.pubDone.Wait()
		w.stopPub, w.publisher = nil, nil
	}
	w.inTerm = false
}

// prune deletes the hook events older than Retention at now, if this
// replica still leads.
func (w *LeaderWork) prune(ctx context.Context, now time.Time) {
	if !w.leading() {
		return
	}
	before := now.Add(-w.cfg.Retention)
	n, err := w.cfg.Store.Prune(ctx, before)
	switch {
	case err != nil && ctx.Err() == nil:
		w.log.Warn("prune the hook event store", slog.Any("err", err))
	case err == nil && n > 0:
		w.log.Info("pruned the hook event store", slog.Int64("rows", n), slog.Time("before", before))
	}
}
