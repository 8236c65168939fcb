package namenode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SaveStateFile writes the Server's state at now to path, atomically: into
// a temporary file beside it, synced, then renamed over path, and the
// directory synced, so that a crash at any moment leaves either the old
// file or the new one, never half of one.
func (s *Server) SaveStateFile(now time.Time, path string) error {
	return writeFileAtomic(context.Background(), path, func(w io.Writer) error { return s.WriteState(w, now) })
}

// FinalSaveTimeout bounds the save of the state file when the service
// stops (RunStateFile), so that it stops well within the systemd unit's
// TimeoutStopSec (30s) beside the in-flight requests' ShutdownTimeout.
const FinalSaveTimeout = 10 * time.Second

// writeFileAtomic writes what write writes to path through a temporary
// file beside it; once ctx is done it stops before the sync and before the
// rename, and removes the temporary file: path keeps what it held.
func writeFileAtomic(ctx context.Context, path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save state to %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = context.Cause(ctx)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = context.Cause(ctx)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save state to %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
	return nil
}

// LoadStateFile imports the state saved in path (ImportState) and returns
// how many reports and DataNodes it applied. A missing file is no error
// (0, 0, nil): the service has never saved. A file that does not parse is
// an error, and nothing of it is applied.
func (s *Server) LoadStateFile(now time.Time, path string) (reports, nodes int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("load state from %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxStateBytes+1))
	if err != nil {
		return 0, 0, fmt.Errorf("load state from %s: %w", path, err)
	}
	st, err := ParseState(data)
	if err != nil {
		return 0, 0, fmt.Errorf("load state from %s: %w", path, err)
	}
	reports, nodes = s.ImportState(now, st)
	return reports, nodes, nil
}

// StartState prepares the Server's state before it serves: from the
// first of peers to answer (Restore, within DefaultRestoreTimeout), else
// from the file at path (when path is set). A file that cannot be read
// is logged as an error and the service starts empty: losing the slow-peer
// reports costs at most one report interval, never the service. It
// returns where the state came from: a peer's URL, "file", or "empty".
//
// It ends what BeginRestore began: from its return the Server is ready.
func (s *Server) StartState(ctx context.Context, peers []string, client *http.Client, path string) (from string) {
	defer func() {
		s.restoring.Store(false)
		s.log.Info("ready", slog.String("state", from))
	}()
	if len(peers) > 0 {
		rctx, cancel := context.WithTimeout(ctx, DefaultRestoreTimeout)
		peer, err := s.Restore(rctx, peers, client)
		cancel()
		if err == nil {
			return peer
		}
		s.log.Warn("no replica gave its state; starting from the state file", slog.Any("err", err))
	}
	if path == "" {
		return "empty"
	}
	nr, nn, err := s.LoadStateFile(s.now(), path)
	if err != nil {
		s.log.Error("state file unusable; starting empty", slog.Any("err", err))
		return "empty"
	}
	if nr == 0 && nn == 0 {
		return "empty"
	}
	s.log.Info("state loaded from file", slog.String("file", path),
		slog.Int("reports", nr), slog.Int("datanodes", nn))
	return "file"
}

// RunStateFile saves the state to path when it changed (a report, a node
// new, back, dead or forgotten, an import), at most every interval and
// every stateSaveSpacing times the last save's duration, and
// at least every stateRefreshEvery while heartbeats arrive, so that the
// file's heartbeat times stay recent; and once more when ctx ends, within
// FinalSaveTimeout. A
// save streams the state to the file (WriteState): its memory does not
// grow with the state, and nothing is encoded while nothing changed. A
// failed save is logged (once per run of failures) and retried at the
// next tick. While it runs, ForgetDataNode saves at once. It first
// removes the temporary files a save cut short left beside path. It
// returns nil.
func (s *Server) RunStateFile(ctx context.Context, path string, interval time.Duration) error {
	if interval <= 0 {
		panic("BUG: namenode.Server.RunStateFile: interval must be positive")
	}
	removeTemporaries(path)
	f := s.useStateFile(path)
	defer s.saveState.Store(nil)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if f.due(true) {
				f.final()
			}
			return nil
		case <-t.C:
			if f.due(false) {
				s.heavy.do(ctx, func() { f.save(ctx, false) })
			}
		}
	}
}

// useStateFile returns the saver of path, and makes ForgetDataNode save
// with it.
func (s *Server) useStateFile(path string) *stateFile {
	f := &stateFile{s: s, path: path, write: writeFileAtomic}
	now := func() error { return f.save(context.Background(), true) }
	s.saveState.Store(&now)
	return f
}

// final saves once more, and gives up after FinalSaveTimeout: the file
// then keeps the last save, and the save left behind stops at its next
// step (writeFileAtomic), or with the process, which is about to exit.
func (f *stateFile) final() {
	ctx, cancel := context.WithTimeoutCause(context.Background(), FinalSaveTimeout,
		fmt.Errorf("final save cut short after %v", FinalSaveTimeout))
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- f.save(ctx, true) }()
	select {
	case err := <-done:
		if err != nil {
			f.s.log.Error("final state save", slog.Any("err", err))
		}
	case <-ctx.Done():
		f.s.log.Error("final state save cut short: the file keeps the last save", slog.String("file", f.path),
			slog.Duration("after", time.Since(start)))
	}
}

// removeTemporaries removes the temporary files of saves of path that did
// not finish (writeFileAtomic's names).
func removeTemporaries(path string) {
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp"))
	for _, t := range tmps {
		os.Remove(t)
	}
}

// stateFile saves a Server's state to its file. Safe for concurrent use.
type stateFile struct {
	s     *Server
	path  string
	write func(ctx context.Context, path string, write func(io.Writer) error) error // writeFileAtomic; tests slow it

	mu      sync.Mutex
	saved   bool          // the file was written since the start
	changes uint64        // Server.changes when it was
	at      time.Time     // when it was
	took    time.Duration // how long it took
	beats   uint64        // heartbeats accepted then
	failing bool          // the last save failed
}

// stateRefreshEvery is how old the file's heartbeat times may grow while
// nothing else changes: a restart then finds every live node live
// (their dead-node expiry is minutes longer).
func (s *Server) stateRefreshEvery() time.Duration { return s.cfg.DeadAfter() / 2 }

// stateSaveSpacing is how many times its own duration the state file is
// left alone after a save: a state of 100 MB that takes 3 s to write is
// written at most every 30 s however fast it changes, a tenth of a core,
// and a crash loses at most that much of the reports (the agents send
// theirs again every report interval).
const stateSaveSpacing = 10

// due reports whether the state may differ from the file's: it changed,
// or heartbeats arrived and the file is stateRefreshEvery old (or, when
// final, heartbeats arrived at all); and, unless final, the last save is
// stateSaveSpacing times its duration old.
func (f *stateFile) due(final bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.saved {
		return true
	}
	if !final && f.s.now().Sub(f.at) < stateSaveSpacing*f.took {
		return false
	}
	if f.s.changes.Load() != f.changes {
		return true
	}
	beats := f.s.metrics.heartbeats.Get() != f.beats
	return beats && (final || f.s.now().Sub(f.at) >= f.s.stateRefreshEvery())
}

// save writes the state, and logs a failure (once per run of them) and
// the first success after; force returns the error instead of logging it.
// Once ctx is done it writes nothing more.
func (f *stateFile) save(ctx context.Context, force bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.s.now()
	changes, beats := f.s.changes.Load(), f.s.metrics.heartbeats.Get()
	start := time.Now()
	err := f.write(ctx, f.path, func(w io.Writer) error { return f.s.WriteState(w, now) })
	took := time.Since(start)
	if err != nil {
		if !f.failing && !force {
			f.s.log.Error("save state", slog.Any("err", err))
		}
		f.failing = true
		return err
	}
	if f.failing {
		f.s.log.Info("state saved again", slog.String("file", f.path))
	}
	f.failing, f.saved, f.changes, f.at, f.took, f.beats = false, true, changes, now, took, beats
	return nil
}
