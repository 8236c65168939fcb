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
	c, err := newHeartbeatClient(u, a.cfg.AuthToken, a.client)
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
		heartbeat: a.cfg.HeartbeatInterval, report: a.cfg.ReportInterval, maxBackoff: a.cfg.MaxRetryBackoff,
		httpAddr: a.httpAddress, jitter: rand.Float64, counters: &a.counters, log: a.log.With(slog.String("namenode", u)),
		status: ServiceStatus{URL: u}}, nil
}

// SetNameNodes makes urls the services the agent sends heartbeats to,
// before or while it runs: those already in the set keep their schedule,
// the new ones get a heartbeat at once, the others are dropped. An empty
// list stops every heartbeat (with Config.FollowNameNodes set). It
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
		if slices.Contains(want, r.url) {
			kept = append(kept, r)
			continue
		}
		if r.cancel != nil {
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

// start runs r's loop; s.mu is held.
func (s *services) start(r *runningActor) {
	if s.stopped {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	r.cancel = cancel
	s.wg.Go(func() { r.run(ctx) })
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
