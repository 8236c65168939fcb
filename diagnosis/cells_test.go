package diagnosis

import (
	"testing"
	"time"
)

// TestCells: the valid cells come back with their names and figures, an
// expired one does not, and max bounds the answer.
func TestCells(t *testing.T) {
	m, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if err := m.Add("a:1", "b:1", 2.5, 100, t0); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(m.Config().MaxAge / 2)
	if err := m.Add("b:1", "a:1", 3.5, 200, later); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(m.Config().MaxAge) // the first cell has expired, the second not
	got := m.Cells(now, 0)
	if len(got) != 1 || got[0] != (Cell{Reporter: "b:1", Peer: "a:1", LatencyMs: 3.5, Samples: 200}) {
		t.Fatalf("Cells = %+v, want only b:1 → a:1", got)
	}
	if got := m.Cells(later, 1); len(got) != 1 {
		t.Fatalf("Cells(max 1) gave %d cells", len(got))
	}
	if got := m.Cells(later, 0); len(got) != 2 {
		t.Fatalf("Cells gave %d cells, want 2", len(got))
	}
}
