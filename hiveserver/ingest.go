package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrClosed is Ingest's and Refresh's error once the Picker's Run has
// stopped.
var ErrClosed = errors.New("hiveserver picker is closed")

const (
	// queueLen is how many Ingest calls may wait for the committer.
	queueLen = 4096
	// maxBatch is the most events one transaction takes.
	maxBatch = 512
	// commitTimeout bounds one transaction, or one load of the workload.
	commitTimeout = 30 * time.Second
	// finishTimeout is how long a transaction under way when Run's ctx
	// ends may still take to commit, so that its callers learn whether
	// their events are stored. It is namenode's default shutdown timeout,
	// within which the HTTP requests waiting for it are let finish.
	finishTimeout = 10 * time.Second
)

// request is one Ingest call waiting for the committer.
type request struct {
	ev   Event
	done chan error // buffered: the committer never waits for the caller
}

// Ingest stores a hook event and updates the workload. It returns nil only
// once the event is committed (durable as far as the Store is), so an HTTP
// 200 after it never loses the event. Concurrent calls share transactions
// (group commit); the event waits for Run to commit it. A repeated event
// changes nothing and returns nil. When ctx ends first the event may or
// may not be stored; sending it again is harmless.
func (p *Picker) Ingest(ctx context.Context, e Event) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	if err := p.NotReady(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	r := &request{ev: e, done: make(chan error, 1)}
	select {
	case p.queue <- r:
	case <-p.stopping:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("ingest: %w", ctx.Err())
	}
	select {
	case err := <-r.done:
		return err
	case <-p.done:
		select { // the committer may have answered just before it stopped
		case err := <-r.done:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return fmt.Errorf("ingest: %w", ctx.Err())
	}
}

// Run loads the workload unless Refresh already did, then commits the
// events Ingest queues and calls Refresh every Config.RefreshInterval (if
// not zero), until ctx ends. Whatever queued up while a transaction ran
// goes into the next one, so the busier Ingest is, the more events share a
// commit. When ctx ends, the transaction under way may finish (for at most
// finishTimeout), the events still queued get ErrClosed, and Run returns
// nil; it returns the error of the first load if that fails, except a
// store not ready (ErrStoreNotReady), which it waits for, refusing picks
// and events meanwhile. Run may be called once.
func (p *Picker) Run(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		panic("BUG: hiveserver.Picker.Run called twice")
	}
	defer close(p.done)
	defer close(p.stopping) // runs first: no more queueing, then done

	if err := p.firstLoad(ctx); err != nil || ctx.Err() != nil {
		p.refuseQueued()
		return err
	}
	var tick <-chan time.Time // nil, so never, without RefreshInterval
	if p.cfg.RefreshInterval > 0 {
		t := time.NewTicker(p.cfg.RefreshInterval)
		defer t.Stop()
		tick = t.C
	}
	batch := make([]*request, 0, maxBatch)
	for {
		if ctx.Err() != nil { // before anything queued
			p.refuseQueued()
			return nil
		}
		select {
		case r := <-p.queue:
			batch = append(batch[:0], r)
		fill:
			for len(batch) < maxBatch {
				select {
				case r := <-p.queue:
					batch = append(batch, r)
				default:
					break fill
				}
			}
			cctx, release := commitContext(ctx)
			p.commitBatch(cctx, batch)
			release()
			clear(batch)
		case <-tick:
			rctx, release := commitContext(ctx)
			if err := p.Refresh(rctx); err != nil {
				p.log.Warn("refresh the HiveServer workload from the store", slog.Any("err", err))
			}
			release()
		case <-ctx.Done():
			p.refuseQueued()
			return nil
		}
	}
}

// notReadyRetry is how often Run tries the first load again while the
// store is not ready.
const notReadyRetry = time.Second

// firstLoad loads the workload unless Refresh already did. While the store
// is not ready (ErrStoreNotReady: its schema not migrated yet) it tries
// again every notReadyRetry until ctx ends, saying so once; any other
// error is returned.
func (p *Picker) firstLoad(ctx context.Context) error {
	p.storeMu.Lock()
	loaded := p.loaded
	p.storeMu.Unlock()
	var retry *time.Ticker // set once it waits
	for !loaded {
		lctx, release := commitContext(ctx)
		err := p.Refresh(lctx)
		release()
		switch {
		case err == nil:
			if retry != nil {
				p.log.Info("HiveServer store ready: workload loaded")
			}
			return nil
		case !errors.Is(err, ErrStoreNotReady):
			return err
		case retry == nil:
			p.log.Warn("HiveServer store not ready: picks and hook events refused until it is; trying again every second", "err", err)
			retry = time.NewTicker(notReadyRetry)
			defer retry.Stop()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
		}
		p.storeMu.Lock()
		loaded = p.loaded // a Refresh of another goroutine may have loaded it
		p.storeMu.Unlock()
	}
	return nil
}

// refuseQueued answers ErrClosed to the Ingest calls queued.
func (p *Picker) refuseQueued() {
	for {
		select {
		case r := <-p.queue:
			r.done <- ErrClosed
		default:
			return
		}
	}
}

// commitContext is the context of one transaction: run's values, at most
// commitTimeout, and at most finishTimeout after run ends. release frees
// it and waits for the goroutine that watches run, if it started.
func commitContext(run context.Context) (ctx context.Context, release func()) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(run), commitTimeout)
	watched := make(chan struct{})
	stop := context.AfterFunc(run, func() {
		defer close(watched)
		t := time.NewTimer(finishTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-ctx.Done():
		}
	})
	return ctx, func() {
		cancel()
		if !stop() {
			<-watched
		}
	}
}

// commitBatch stores the batch's events in one transaction and answers
// each request. If the transaction fails, each event is tried alone so
// that one bad event cannot fail the others.
func (p *Picker) commitBatch(ctx context.Context, batch []*request) {
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	if p.stale {
		if err := p.refresh(ctx); err != nil {
			for _, r := range batch {
				r.done <- err
			}
			return
		}
	}
	events := make([]Event, len(batch))
	for i, r := range batch {
		events[i] = r.ev
	}
	changes, err := p.commit(ctx, events)
	if err == nil || len(batch) == 1 {
		p.answer(batch, changes, err)
		return
	}
	for i, r := range batch {
		changes, err := p.commit(ctx, events[i:i+1])
		p.answer([]*request{r}, changes, err)
	}
}

// commit stores events; after a commit of unknown outcome it reloads the
// workload, or marks it stale, so memory never drifts from the store.
func (p *Picker) commit(ctx context.Context, events []Event) ([]Change, error) {
	changes, err := p.store.Commit(ctx, events)
	if err == nil {
		p.commits.Add(1)
	}
	if errors.Is(err, ErrCommitUncertain) {
		p.stale = true
		if rerr := p.refresh(ctx); rerr != nil {
			p.log.Error("reload HiveServer workload after a failed commit", "err", rerr)
		}
	}
	return changes, err
}

// answer applies committed changes to the workload, then answers.
func (p *Picker) answer(batch []*request, changes []Change, err error) {
	if err == nil {
		p.mu.Lock()
		for _, c := range changes {
			p.w.apply(c)
		}
		p.mu.Unlock()
		p.events.Add(uint64(len(batch)))
	}
	for _, r := range batch {
		r.done <- err
	}
}
