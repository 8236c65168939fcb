package hiveserver

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// testConfig is cfg with its zero durations at their defaults and, unless
// set, a logger that discards.
func testConfig(cfg Config) Config {
	def := DefaultConfig()
	for _, f := range []struct{ d, def *time.Duration }{
		{&cfg.QueryTimeout, &def.QueryTimeout}, {&cfg.MinRemaining, &def.MinRemaining},
		{&cfg.DefaultCost, &def.DefaultCost}, {&cfg.ServerExpiry, &def.ServerExpiry},
	} {
		if *f.d == 0 {
			*f.d = *f.def
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// loadPicker returns a Picker on s with testConfig(cfg), its workload
// loaded, not running.
func loadPicker(t testing.TB, s Store, cfg Config) *Picker {
	t.Helper()
	p, err := New(testConfig(cfg), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

// runPicker runs p until stop or the end of the test (testenv.Start).
func runPicker(t testing.TB, p *Picker) (stop func()) {
	t.Helper()
	return testenv.Start(t, p.Run)
}

// openPicker is a loaded Picker on s that runs until the end of the test.
func openPicker(t testing.TB, s Store, cfg Config) *Picker {
	t.Helper()
	p := loadPicker(t, s, cfg)
	runPicker(t, p)
	return p
}

// countRows is how many statements m holds.
func countRows(m *MemoryStore) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

// t0 is the synthetic start of time of the tests.
var t0 = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus d, in milliseconds since the epoch.
func at(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

// ev is an event with a made-up statement text.
func ev(server string, hook Hook, id, job string, timeMs int64) Event {
	return Event{Server: server, Hook: hook, QueryID: id, QueryStr: "SELECT '" + id + "'", JobName: job, TimeMs: timeMs}
}

func ingest(t testing.TB, p *Picker, events ...Event) {
	t.Helper()
	for _, e := range events {
		if err := p.Ingest(context.Background(), e); err != nil {
			t.Fatalf("ingest %+v: %v", e, err)
		}
	}
}
