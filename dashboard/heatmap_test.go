package dashboard

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

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

// referenceHeatmap is newHeatmap of a Matrix as it was first written, a
// map of every pair: the reference matrixHeatmap must agree with.
func referenceHeatmap(m *Matrix) heatmap {
	latency := map[pair]float64{}
	var h heatmap
	values := make([]float64, 0, len(m.Latencies))
	for _, l := range m.Latencies {
		latency[pair{l.Reporter, l.Peer}] = l.LatencyMs
		values = append(values, l.LatencyMs)
	}
	h.MedianMs = medianOf(values)
	rowScore, colScore := map[string]float64{}, map[string]float64{}
	for p, l := range latency {
		over := max(0, min(ratio(l, h.MedianMs), 1e6)-1)
		rowScore[p.reporter] += over
		colScore[p.peer] += over
	}
	rows, cols := topKeys(rowScore), topKeys(colScore)
	h.AllReporters, h.AllPeers, h.Peers = len(rowScore), len(colScore), cols
	for _, rep := range rows {
		row := heatRow{Reporter: rep, Cells: make([]heatCell, len(cols))}
		for i, peer := range cols {
			l, ok := latency[pair{rep, peer}]
			if !ok {
				continue
			}
			r := ratio(l, h.MedianMs)
			row.Cells[i] = heatCell{Measured: true, LatencyMs: l, Ratio: r, Level: level(r)}
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// The heatmap of a Matrix is the reference's, on random matrices with
// missing pairs, slow rows and slow columns.
func TestDashboardHeatmapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		m := &Matrix{}
		n := 5 + rng.IntN(60)
		for r := range n {
			for p := range n {
				if r == p || rng.IntN(4) == 0 {
					continue
				}
				// Powers of two keep the scores' sums exact whatever
				// the order of adding, so ties break alike.
				ms := float64(int(1) << rng.IntN(3))
				if p%7 == round%7 || r%11 == round%11 {
					ms *= 16
				}
				m.Latencies = append(m.Latencies, Latency{Reporter: fmt.Sprintf("r%02d:1", r), Peer: fmt.Sprintf("p%02d:1", p), LatencyMs: ms})
			}
		}
		if got, want := newHeatmap(m, nil), referenceHeatmap(m); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (%d nodes): heatmap\n%+v\nwant\n%+v", round, n, got, want)
		}
	}
}

// The heatmap of a Matrix the Source gives again is drawn once; a new
// Matrix is drawn anew.
func TestDashboardHeatmapOncePerMatrix(t *testing.T) {
	v := slowView()
	v.Matrix = &Matrix{Latencies: []Latency{
		{Reporter: "10.0.0.2:9866", Peer: "10.0.0.5:9866", LatencyMs: 35.2},
		{Reporter: "10.0.0.2:9866", Peer: "10.0.0.3:9866", LatencyMs: 2},
	}}
	d := New(SourceFunc(func(time.Time) View { return v }), Config{Now: func() time.Time { return t0 }})
	first := d.page(t0).Heatmap
	v.Matrix.Latencies[0].LatencyMs = 99 // a Source must not; here it shows the reuse
	if again := d.page(t0).Heatmap; !reflect.DeepEqual(again, first) {
		t.Fatalf("the same Matrix was drawn anew: %+v", again)
	}
	v.Matrix = &Matrix{Latencies: slices.Clone(v.Matrix.Latencies)}
	if fresh := d.page(t0).Heatmap; fresh.Rows[0].Cells[1].LatencyMs != 99 {
		t.Fatalf("a new Matrix was not drawn: %+v", fresh)
	}
}
