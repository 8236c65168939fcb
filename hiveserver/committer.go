package hiveserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ErrClosed is Ingest's and Refresh's error once the Picker is closed.
var ErrClosed = errors.New("hiveserver picker is closed")

const (
	// queueLen is how many Ingest calls may wait for the committer.
	queueLen = 4096
	// maxBatch is the most events one transaction takes.
	maxBatch = 512
	// commitTimeout bounds one transaction, or one load of the workload.
	commitTimeout = 30 * time.Second
)

// request is one Ingest call waiting for the committer.
type request struct {
	ev   Event
	done chan error // buffered: the committer never waits for the caller
}

// Ingest stores a hook event and updates the workload. It returns nil only
// once the event is committed (durable), so an HTTP 200 after it never
// loses the event. Concurrent calls share transactions (group commit). A
// repeated event changes nothing and returns nil. When ctx ends first the
// event may or may not be stored; sending it again is harmless.
func (p *Picker) Ingest(ctx context.Context, e Event) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	r := &request{ev: e, done: make(chan error, 1)}
	select {
	case p.queue <- r:
	case <-p.closing:
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

// Refresh reloads the workload from the store. A Picker sees the events
// other service replicas store in a shared MySQL store only after a
// Refresh; with SQLite there is no need.
func (p *Picker) Refresh(ctx context.Context) error {
	done := make(chan error, 1)
	select {
	case p.refreshes <- done:
	case <-p.closing:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("refresh: %w", ctx.Err())
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("refresh: %w", ctx.Err())
	}
}

// Close stops the committer after the transaction under way; events still
// queued get ErrClosed. It does not close the Store.
func (p *Picker) Close() error {
	p.closeOnce.Do(func() { close(p.closing) })
	<-p.done
	return nil
}

// run is the committer: the one goroutine that writes the store and the
// workload. Whatever queued up while a transaction ran goes into the next
// one, so the busier Ingest is, the more events share a commit.
func (p *Picker) run() {
	defer close(p.done)
	batch := make([]*request, 0, maxBatch)
	var tick <-chan time.Time // nil, so never, without RefreshInterval
	if p.cfg.RefreshInterval > 0 {
		t := time.NewTicker(p.cfg.RefreshInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
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
			p.commitBatch(batch)
			clear(batch)
		case done := <-p.refreshes:
			ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
			done <- p.refresh(ctx)
			cancel()
		case <-tick:
			ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
			if err := p.refresh(ctx); err != nil {
				p.log.Warn("refresh the HiveServer workload from the store", slog.Any("err", err))
			}
			cancel()
		case <-p.closing:
			for {
				select {
				case r := <-p.queue:
					r.done <- ErrClosed
				default:
					return
				}
			}
		}
	}
}

// commitBatch stores the batch's events in one transaction and answers
// each request. If the transaction fails, each event is tried alone so
// that one bad event cannot fail the others.
func (p *Picker) commitBatch(batch []*request) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
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
func (p *Picker) commit(ctx context.Context, events []Event) ([]change, error) {
	changes, err := p.store.commit(ctx, events)
	if err == nil {
		p.commits.Add(1)
	}
	var ce *commitError
	if errors.As(err, &ce) && ce.uncertain {
		p.stale = true
		if rerr := p.refresh(ctx); rerr != nil {
			p.log.Error("reload HiveServer workload after a failed commit", "err", rerr)
		}
	}
	return changes, err
}

// answer applies committed changes to the workload, then answers.
func (p *Picker) answer(batch []*request, changes []change, err error) {
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

// refresh replaces the workload with a fresh load of the store.
func (p *Picker) refresh(ctx context.Context) error {
	snap, err := p.store.load(ctx)
	if err != nil {
		return err
	}
	w := newWorkload(snap)
	p.mu.Lock()
	p.w = w
	p.mu.Unlock()
	p.stale = false
	return nil
}
