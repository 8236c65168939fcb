package namenode

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// StepResult is what one Step did.
type StepResult struct {
	// Expired is the number of (slow node, reporter) entries deleted.
	Expired int
	// Died lists, sorted, the DataNodes found dead since the last Step.
	Died []string
	// Forgotten is the number of DataNodes dropped from the table, silent
	// for longer than DataNodeForgetAfter.
	Forgotten int
}

// Step is the Server's periodic work at now: it deletes expired slow-peer
// reports, forgets DataNodes silent for longer than DataNodeForgetAfter
// (and the fast path's pairs of them), and logs what happened since the last Step in a few lines, whatever the
// number of nodes or requests: the DataNodes that registered or came back,
// those that died (each death once), and at most every summaryEvery the
// requests refused. A node found dead leaves the slow sets at once, not
// after slowpeer.slow.leave.after: it gets no work anyway, and alerts on
// it would only say that it is gone (its exit is logged and counted as
// every exit is, decisions.go). Reads never depend on it (expired reports are never
// shown, and live/dead is decided at read time); it bounds memory and
// logs. Serve calls it every HeartbeatInterval.
func (s *Server) Step(now time.Time) StepResult {
	res := StepResult{Expired: s.tracker.Expire(now), Died: s.nodes.Check(now)}
	forgotten := s.nodes.Forget(now, s.cfg.DataNodeForgetAfter)
	res.Forgotten = len(forgotten)
	s.diag.died(res.Died)
	s.forgetSuspects(forgotten)
	if len(res.Died) > 0 {
		s.dropFromSlowSets(now, func(node string) bool { _, dead := slices.BinarySearch(res.Died, node); return dead },
			fmt.Sprintf("dead: no heartbeat for %v", s.cfg.DeadAfter()))
	}
	if res.Expired > 0 || len(res.Died) > 0 || res.Forgotten > 0 {
		s.changes.Add(1)
	}
	names, n := s.registered.take()
	logNodes(s.log, slog.LevelInfo, "datanodes are live", names, n)
	logNodes(s.log, slog.LevelWarn, "datanodes are dead", res.Died, len(res.Died),
		slog.Duration("deadAfter", s.cfg.DeadAfter()))
	if res.Forgotten > 0 {
		s.log.Info("forgot dead datanodes", slog.Int("count", res.Forgotten),
			slog.Duration("silentFor", s.cfg.DataNodeForgetAfter))
	}
	if res.Expired > 0 {
		s.log.Debug("expired slow-peer reports", slog.Int("entries", res.Expired))
	}
	if line := s.metrics.refused.summary(now); line != "" {
		s.log.Warn(line)
	}
	return res
}

// runSteps calls Step every HeartbeatInterval until ctx is done, then
// returns nil. Serve runs it.
func (s *Server) runSteps(ctx context.Context) error {
	every(ctx, s.cfg.HeartbeatInterval, func() { s.Step(s.now()) })
	return nil
}

// The http.Server's timeouts, the lane's too.
const (
	writeTimeout = time.Minute
	idleTimeout  = 2 * time.Minute
)

// every calls f every d until ctx is done.
func every(ctx context.Context, d time.Duration, f func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
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
//
// It serves at most MaxConnections connections at once (limitListener),
// fewer when the process may not open that many (openFilesCap, logged),
// and gives a client HeaderReadTimeout to send a request header and
// BodyReadTimeout more for its body.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	s.addr.Store(&addr)
	h := s.Handler()
	capacity := s.cfg.MaxConnections
	if files := openFilesLimit(); openFilesCap(capacity, files) < capacity {
		capacity = openFilesCap(capacity, files)
		s.log.Warn("connection cap lowered to what the process may open", slog.String("key", MaxConnectionsKey),
			slog.Int("configured", s.cfg.MaxConnections), slog.Int("cap", capacity), slog.Uint64("openFilesLimit", files))
	}
	limited := newLimitListener(ln, capacity)
	s.conns.Store(limited)
	s.warnOpen(addr)
	srv := &http.Server{
		Handler:           h,
		ConnContext:       withConn,
		ReadHeaderTimeout: s.cfg.HeaderReadTimeout,
		ReadTimeout:       s.cfg.HeaderReadTimeout + s.cfg.BodyReadTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(serverErrors{log: s.log, refused: &s.metrics.refused}, "", 0),
	}
	stepCtx, stopSteps := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.runSteps(stepCtx) })
	wg.Go(func() { s.runDiagnosis(stepCtx) })
	wg.Go(func() { s.runDiskDiagnosis(stepCtx) })
	wg.Go(func() { s.runSuspects(stepCtx) })
	// Under TLS net/http serves every connection; else the lane does,
	// and hands net/http what it does not read itself (lane.go).
	served := make(chan error, 1)
	var fast *lane
	if s.cfg.TLS != nil {
		wg.Go(func() { served <- srv.Serve(tls.NewListener(limited, s.cfg.TLS)) })
	} else {
		fast = newLane(s, h, limited)
		wg.Go(func() { srv.Serve(fast.handed) }) // ends with Shutdown or Close
		wg.Go(func() { served <- fast.run() })
	}
	s.log.Info("serving", slog.String("listen", addr))

	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("serve http on %s: %w", addr, err)
		if fast != nil { // net/http serves the lane's listener still
			srv.Close()
			closed, cancel := context.WithCancel(ctx)
			cancel()
			fast.shutdown(closed)
		}
	case <-ctx.Done():
		s.log.Info("shutting down", slog.Duration("timeout", s.cfg.ShutdownTimeout))
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
		var laneErr error
		if fast != nil {
			laneErr = fast.shutdown(sctx)
		}
		if err = cmp.Or(srv.Shutdown(sctx), laneErr); err != nil {
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
