package namenode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// StepResult is what one Step did.
type StepResult struct {
	// Expired is the number of (slow node, reporter) entries deleted.
	Expired int
	// Died lists, sorted, the DataNodes found dead since the last Step.
	Died []string
}

// Step is the Server's periodic work at now: it deletes expired slow-peer
// reports and logs each DataNode that has died since the last Step. Reads
// never depend on it (expired reports are never shown, and live/dead is
// decided at read time); it bounds memory and reports deaths once.
// RunSteps calls it every HeartbeatInterval.
func (s *Server) Step(now time.Time) StepResult {
	res := StepResult{Expired: s.tracker.Expire(now), Died: s.nodes.Check(now)}
	s.updateSlowSet(now)
	for _, n := range res.Died {
		s.log.Warn("datanode is dead", slog.String("node", n),
			slog.Duration("deadAfter", s.cfg.DeadAfter()))
	}
	if res.Expired > 0 {
		s.log.Debug("expired slow-peer reports", slog.Int("entries", res.Expired))
	}
	return res
}

// RunSteps calls Step every HeartbeatInterval until ctx is done, then
// returns nil. Run and Serve call it; call it yourself only when you serve
// Handler with a server of your own.
func (s *Server) RunSteps(ctx context.Context) error {
	t := time.NewTicker(s.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			s.Step(s.now())
		}
	}
}

// Run listens on Config.Listen and serves there until ctx is done, as
// Serve does.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	return s.Serve(ctx, ln)
}

// Serve answers HTTP requests on ln and runs the periodic Step until ctx
// is done; then it stops accepting, lets in-flight requests finish within
// ShutdownTimeout, closes what is left and returns. It returns nil after a
// clean shutdown, and an error when the listener fails or requests had to
// be cut off. It closes ln. Serve (or Run) may be called once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	s.addr.Store(&addr)
	h := s.Handler()
	if s.cfg.AuthToken == "" {
		s.log.Warn("no auth token: anyone who can reach the service can post heartbeats and slow-peer reports",
			slog.String("listen", addr))
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	stepCtx, stopSteps := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.RunSteps(stepCtx) })
	served := make(chan error, 1)
	wg.Go(func() { served <- srv.Serve(ln) })
	s.log.Info("serving", slog.String("listen", addr))

	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("serve http on %s: %w", addr, err)
	case <-ctx.Done():
		s.log.Info("shutting down", slog.Duration("timeout", s.cfg.ShutdownTimeout))
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
		if err = srv.Shutdown(sctx); err != nil {
			srv.Close()
			err = fmt.Errorf("shut down http server on %s: requests still running after %v: %w",
				addr, s.cfg.ShutdownTimeout, err)
		}
		cancel()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = fmt.Errorf("serve http on %s: %w", addr, serr)
		}
	}
	stopSteps()
	wg.Wait()
	return err
}
