package discovery

import (
	"context"
	"log/slog"
	"time"
)

// promote marks the replica as the election's winner and starts Lead,
// once the previous term's Lead has returned. It does nothing while a
// term runs.
func (r *Replica) promote() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.leading || r.draining {
		return
	}
	r.leading = true
	r.leader = r.cfg.Self.Server
	ctx, cancel := context.WithCancel(context.Background())
	t := &leaderTerm{cancel: cancel, done: make(chan struct{})}
	prev := r.lastTerm
	r.term, r.lastTerm = t, t
	r.log.Info("registry: this replica leads")
	go func() {
		defer close(t.done)
		if prev != nil {
			<-prev.done // never two terms' work at once
		}
		r.lead(ctx)
	}()
}

// lead runs Lead until ctx ends, again a second after each failure.
func (r *Replica) lead(ctx context.Context) {
	if r.cfg.Lead == nil {
		return
	}
	for ctx.Err() == nil {
		err := r.cfg.Lead(ctx)
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("registry: leader work failed; again in a second", slog.Any("err", err))
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// demote ends the leader work at once (it does not wait for it) and marks
// the replica as not leading.
func (r *Replica) demote(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.leading {
		return
	}
	r.leading = false
	if r.leader == r.cfg.Self.Server {
		r.leader = ""
	}
	r.term.cancel()
	r.term = nil
	r.log.Warn("registry: this replica no longer leads", slog.String("why", why))
}

// checkHeard demotes the leader that has not heard from the registry for
// two thirds of Timeout: its session or lease may be about to expire.
func (r *Replica) checkHeard(now time.Time) {
	r.mu.Lock()
	stale := r.leading && !r.leadingLocked(now)
	r.mu.Unlock()
	if stale {
		r.demote("the registry has not answered for two thirds of the timeout")
	}
}

// watchHeard demotes the leader the moment two thirds of the timeout have
// passed since the registry last answered (checkHeard), whatever the
// backend's loop is doing (waiting on a registry that does not answer,
// say), until ctx ends. Between those moments it sleeps: at most a tenth
// of the timeout, so that a new answer, which moves the moment, is seen.
func (r *Replica) watchHeard(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		r.checkHeard(now)
		t.Reset(r.nextCheck(now))
	}
}

// nextCheck is how long watchHeard sleeps after now: until the leader's
// two thirds run out, at most a tenth of the timeout.
func (r *Replica) nextCheck(now time.Time) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	timeout := r.timeoutLocked()
	d := timeout / 10
	if r.leading {
		d = min(d, r.heard.Add(timeout*2/3).Sub(now))
	}
	return max(d, time.Millisecond)
}

// waitLead waits for the latest term's Lead to return.
func (r *Replica) waitLead() {
	r.mu.Lock()
	t := r.lastTerm
	r.mu.Unlock()
	if t != nil {
		<-t.done
	}
}

// drain marks the replica as draining: it leads no more.
func (r *Replica) drain() {
	r.demote("draining")
	r.mu.Lock()
	r.draining = true
	r.mu.Unlock()
}
