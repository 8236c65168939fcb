package storetest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// OpenPicker returns a Picker on s with the default configuration and a
// logger that discards, its workload loaded and running, and the function
// that stops it (see testenv.Start); it stops at the end of the test too,
// before a store opened earlier in the test closes.
func OpenPicker(t testing.TB, s hiveserver.Store) (p *hiveserver.Picker, stop func()) {
	t.Helper()
	cfg := hiveserver.DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	p, err := hiveserver.New(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p, testenv.Start(t, p.Run)
}

// T0 is the synthetic start of time of the tests.
var T0 = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// At is T0 plus d, in milliseconds since the epoch.
func At(d time.Duration) int64 { return T0.Add(d).UnixMilli() }

// Event is an event of statement id with a made-up text, "SELECT 'id'".
func Event(server string, hook hiveserver.Hook, id, job string, timeMs int64) hiveserver.Event {
	return hiveserver.Event{Server: server, Hook: hook, QueryID: id, QueryStr: "SELECT '" + id + "'", JobName: job, TimeMs: timeMs}
}

// Ingest sends events to p, in order, and fails the test at the first
// that p does not store.
func Ingest(t testing.TB, p *hiveserver.Picker, events ...hiveserver.Event) {
	t.Helper()
	for _, e := range events {
		if err := p.Ingest(context.Background(), e); err != nil {
			t.Fatalf("ingest %+v: %v", e, err)
		}
	}
}
