package datanode

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// services is an agent's set of NameNode-side services, one actor each.
// It may change while the agent runs (SetNameNodes, from a registry the
// command follows): an actor that stays keeps its schedule, a new one
// starts with a heartbeat at once, a dropped one stops (its heartbeat in
// flight is cancelled).
type services struct {
	mu      sync.Mutex
	running []*runningActor // in the order they were added
	ctx     context.Context // Run's, nil before Run and after it
	stopped bool            // Run has ended: start nothing more
	wg      sync.WaitGroup  // the actors' goroutines
}

// runningActor is an actor and what stops it.
type runningActor struct {
	*actor
	url    string
	cancel context.CancelFunc // nil until started
}

// newActor builds the actor of the service at u.
func (a *Agent) newActor(u string) (*actor, error) {
	c, err := newHeartbeatClient(u, a.cfg.AuthToken, a.cfg.FollowNameNodes, a.client)
	if err != nil {
		return nil, fmt.Errorf("namenode: %w", err)
	}
	// The early second look needs windows of the agent's own: Hadoop's
	// averages read through -hadoop-jmx span 3 hours.
	var lookAgain time.Duration
	if a.jmx == nil {
		lookAgain = a.cfg.RollingSpan()
	}
	return &actor{node: a.cfg.ID, send: c, detect: a.detect, disks: a.disks, lookAgain: lookAgain,
		recent: a.recent, confirm: a.confirm, wake: make(chan struct{}, 1),
		heartbeat: a.cfg.HeartbeatInterval, report: a.cfg.ReportInterval, maxBackoff: a.cfg.MaxRetryBackoff,
		httpAddr: a.httpAddress, jitter: rand.Float64, counters: &a.counters, log: a.log.With(slog.String("namenode", u)),
		status: ServiceStatus{URL: u}}, nil
}

// SetNameNodes makes urls the services the agent sends heartbeats to,
// before or while it runs: those already in the set keep their schedule,
// the new ones get a heartbeat at once, the others are dropped. With
// Config.FollowNameNodes (urls are what a registry says now) a service
// left out keeps its heartbeats while it answers them, and is dropped at
// its first failed one: a replica cut off from the registry, whose
// registration expired there, still serves the agents that reach it. It
// returns an error, and changes nothing, if a URL is not a base URL.
func (a *Agent) SetNameNodes(urls []string) error {
	var want []string
	for _, u := range urls {
		if err := validateURL(u, false); err != nil {
			return fmt.Errorf("namenode: %w", err)
		}
		if !slices.Contains(want, u) {
			want = append(want, u)
		}
	}
	s := &a.services
	s.mu.Lock()
	defer s.mu.Unlock()
	var kept []*runningActor
	for _, r := range s.running {
		switch {
		case slices.Contains(want, r.url):
			if r.leaving.Swap(false) {
				a.log.Info("namenode registered again", slog.String("namenode", r.url))
			}
			kept = append(kept, r)
		case a.cfg.FollowNameNodes && r.cancel != nil:
			if !r.leaving.Swap(true) {
				a.log.Info("namenode left the registry: heartbeats go on while it answers them", slog.String("namenode", r.url))
			}
			kept = append(kept, r)
		case r.cancel != nil:
			r.cancel()
			a.log.Info("namenode dropped", slog.String("namenode", r.url))
		}
	}
	for _, u := range want {
		if slices.ContainsFunc(kept, func(r *runningActor) bool { return r.url == u }) {
			continue
		}
		ac, err := a.newActor(u)
		if err != nil {
			return err
		}
		r := &runningActor{actor: ac, url: u}
		kept = append(kept, r)
		if s.ctx != nil {
			a.log.Info("namenode added", slog.String("namenode", u))
			s.start(r)
		}
	}
	s.running = kept
	return nil
}

// start runs r's loop; s.mu is held. A loop that ends by itself (a
// leaving service that failed) takes r out of the set.
func (s *services) start(r *runningActor) {
	if s.stopped {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancel = cancel
	s.wg.Go(func() {
		r.run(ctx)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !r.leaving.Load() { // registered again meanwhile
			s.start(r)
			return
		}
		s.running = slices.DeleteFunc(s.running, func(x *runningActor) bool { return x == r })
		cancel()
		r.log.Info("namenode dropped: gone from the registry, and it does not answer")
	})
}

// run starts every actor, then waits for ctx to end and for the actors to
// stop.
func (s *services) run(ctx context.Context) {
	s.mu.Lock()
	s.ctx = ctx
	for _, r := range s.running {
		s.start(r)
	}
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	s.stopped, s.ctx = true, nil
	s.mu.Unlock()
	s.wg.Wait()
}

// statuses returns what the agent knows of each service, in the order
// they were added.
func (s *services) statuses() []ServiceStatus {
	s.mu.Lock()
	rs := slices.Clone(s.running)
	s.mu.Unlock()
	out := make([]ServiceStatus, len(rs))
	for i, r := range rs {
		out[i] = r.Status()
	}
	return out
}
