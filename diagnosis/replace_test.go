package diagnosis

import (
	"errors"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// A report replaces its reporter's row: the peers of the one before go,
// a latency to itself is skipped, a bad cell is left out (its error
// returned) and a new reporter of a full matrix gets ErrFull.
func TestReplace(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxReporters = 2
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1_700_000_000, 0)
	a, b, c, d := "10.0.0.1:9866", "10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866"
	pl := func(node string, ms float64) reports.PeerLatency {
		return reports.PeerLatency{Node: node, LatencyMs: ms, Samples: 100}
	}
	if err := m.Replace(a, []reports.PeerLatency{pl(b, 1), pl(c, 2), pl(a, 9)}, at); err != nil {
		t.Fatal(err)
	}
	if n := m.Len(); n != 2 {
		t.Fatalf("after the first report: %d cells, want 2 (not the one to itself)", n)
	}
	if err := m.Replace(a, []reports.PeerLatency{pl(d, 1)}, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := m.Len(); n != 1 {
		t.Fatalf("after the second report: %d cells, want 1: it replaces the first", n)
	}
	if err := m.Replace(b, []reports.PeerLatency{pl(c, -1), pl(d, 1)}, at); err == nil || m.Len() != 2 {
		t.Fatalf("a bad cell: err %v, %d cells, want an error and the good cell in", err, m.Len())
	}
	if err := m.Replace(c, []reports.PeerLatency{pl(d, 1)}, at); !errors.Is(err, ErrFull) {
		t.Fatalf("a third reporter of two: %v, want ErrFull", err)
	}
}
