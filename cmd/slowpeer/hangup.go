package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// reloadable is a file (or pair of files) SIGHUP re-reads.
type reloadable struct {
	name   string
	reload func() error
	// describe, if not nil, says what is in use after a reload, for the log.
	describe func() string
}

// hangup re-reads its files on every SIGHUP, as daemons do, without
// stopping anything: the TLS configs read the new certificates at the
// next handshake, and open connections keep theirs.
type hangup struct {
	log   *slog.Logger
	items []reloadable
	sig   chan os.Signal
}

// newHangup starts catching SIGHUP at once (from then on it no longer
// ends the process); call stop when done, or run it as a member of a
// group, which stops it when it returns.
func newHangup(log *slog.Logger, items []reloadable) *hangup {
	h := &hangup{log: log, items: items, sig: make(chan os.Signal, 1)}
	signal.Notify(h.sig, syscall.SIGHUP)
	return h
}

// stop lets SIGHUP go back to what it did before.
func (h *hangup) stop() error {
	signal.Stop(h.sig)
	return nil
}

// run re-reads every item at each SIGHUP until ctx ends. A file that
// fails to load is logged and the one in use kept.
func (h *hangup) run(ctx context.Context) error {
	defer h.stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.sig:
			h.reload()
		}
	}
}

// reload re-reads every item once.
func (h *hangup) reload() {
	if len(h.items) == 0 {
		h.log.Info("SIGHUP: no TLS files to re-read")
	}
	for _, it := range h.items {
		if err := it.reload(); err != nil {
			h.log.Error("SIGHUP: keep the files in use", slog.String("what", it.name), slog.Any("err", err))
			continue
		}
		attrs := []any{slog.String("what", it.name)}
		if it.describe != nil {
			attrs = append(attrs, slog.String("now", it.describe()))
		}
		h.log.Info("SIGHUP: reloaded", attrs...)
	}
}
