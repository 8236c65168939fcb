package dashboard

import (
	"fmt"
	"slices"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

func TestDashboardHeatmapFromReports(t *testing.T) {
	slow := []SlowNode{
		{Node: "c:1", Reporters: []reports.Reporter{
			{Node: "a:1", LatencyMs: 40, MedianMs: 2},
			{Node: "b:1", LatencyMs: 30, MedianMs: 3},
		}},
		{Node: "d:1", Reporters: []reports.Reporter{{Node: "a:1", LatencyMs: 7, MedianMs: 0}}},
	}
	h := newHeatmap(nil, slow)
	if !h.FromReports || h.AllReporters != 2 || h.AllPeers != 2 {
		t.Fatalf("heatmap %+v", h)
	}
	if fmt.Sprint(h.Peers) != "[c:1 d:1]" || h.Rows[0].Reporter != "a:1" || h.Rows[1].Reporter != "b:1" {
		t.Fatalf("axes %v, rows %+v", h.Peers, h.Rows)
	}
	a, b := h.Rows[0].Cells, h.Rows[1].Cells
	if !a[0].Measured || a[0].Ratio != 20 || !a[0].Slow() || a[0].Level != 4 {
		t.Fatalf("a → c: %+v", a[0])
	}
	if !a[1].Slow() { // no median to compare with: slow, as reported
		t.Fatalf("a → d: %+v", a[1])
	}
	if b[0].Ratio != 10 || b[1].Measured {
		t.Fatalf("b: %+v", b)
	}
}

// In a full matrix a slow receiver is a column, a slow sender a row and a
// bad link one cell, each compared with the median of all cells.
func TestDashboardHeatmapMatrix(t *testing.T) {
	nodes := []string{"n1:1", "n2:1", "n3:1", "n4:1", "n5:1"}
	m := &Matrix{}
	for _, r := range nodes {
		for _, p := range nodes {
			if r == p {
				continue
			}
			ms := 2.0
			switch {
			case p == "n2:1": // slow receiver
				ms = 40
			case r == "n4:1": // slow sender
				ms = 30
			case r == "n1:1" && p == "n5:1": // bad link
				ms = 25
			}
			m.Latencies = append(m.Latencies, Latency{Reporter: r, Peer: p, LatencyMs: ms})
		}
	}
	h := newHeatmap(m, nil)
	if h.FromReports || h.MedianMs != 2 || len(h.Rows) != 5 || len(h.Peers) != 5 {
		t.Fatalf("heatmap %+v", h)
	}
	for _, row := range h.Rows {
		for i, c := range row.Cells {
			peer := h.Peers[i]
			want := peer == "n2:1" || row.Reporter == "n4:1" || row.Reporter == "n1:1" && peer == "n5:1"
			if row.Reporter == peer {
				if c.Measured {
					t.Fatalf("%s measured itself: %+v", peer, c)
				}
				continue
			}
			if c.Slow() != want {
				t.Fatalf("%s → %s: %+v, want slow %v", row.Reporter, peer, c, want)
			}
		}
	}
}

// A large cluster shows the MaxHeatmapNodes reporters and peers with the
// highest ratios, sorted by name.
func TestDashboardHeatmapBounded(t *testing.T) {
	m := &Matrix{}
	for r := range 50 {
		for p := range 50 {
			ms := 1.0
			if p == 49 {
				ms = 50
			}
			if r == 7 {
				ms = 20
			}
			m.Latencies = append(m.Latencies, Latency{Reporter: fmt.Sprintf("r%02d:1", r), Peer: fmt.Sprintf("p%02d:1", p), LatencyMs: ms})
		}
	}
	h := newHeatmap(m, nil)
	if len(h.Rows) != MaxHeatmapNodes || len(h.Peers) != MaxHeatmapNodes || h.AllReporters != 50 || h.AllPeers != 50 {
		t.Fatalf("%d rows of %d, %d peers of %d", len(h.Rows), h.AllReporters, len(h.Peers), h.AllPeers)
	}
	if h.Peers[len(h.Peers)-1] != "p49:1" {
		t.Fatalf("the slow receiver is not shown: %v", h.Peers)
	}
	var rows []string
	for _, r := range h.Rows {
		rows = append(rows, r.Reporter)
	}
	if !slices.Contains(rows, "r07:1") || !slices.IsSorted(rows) {
		t.Fatalf("the slow sender r07:1 is not shown, or the rows are not sorted: %v", rows)
	}
}

func TestDashboardLevel(t *testing.T) {
	f := func(ratio float64, want int) {
		t.Helper()
		if got := level(ratio); got != want {
			t.Fatalf("level(%v) = %d, want %d", ratio, got, want)
		}
	}
	f(0, 0)
	f(1.49, 0)
	f(1.5, 1)
	f(2.99, 1)
	f(3, 2)
	f(6, 3)
	f(12, 4)
	f(24, 5)
	f(1e9, 5)
}
