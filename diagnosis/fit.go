package diagnosis

import (
	"math"
	"slices"
	"time"
)

// Latencies are clamped to [minLatencyMs, maxLatencyMs] before taking
// logarithms: below one microsecond (a zero, say) is less than any agent
// measures, above a billion milliseconds (11 days) more than any waits.
// The upper bound keeps the fit's effects, which can reach past the data,
// and the latencies of findings (their exponentials) finite: a latency of
// 1e300 ms, valid input, made a finding of +Inf ms, which JSON cannot
// carry.
const (
	minLatencyMs = 1e-3
	maxLatencyMs = 1e9
)

// fit is the robust two-way fit of the valid cells of a Matrix, in log
// latency: y = mu + s[sender] + r[receiver] + residual. Its slices are
// scratch space, kept between Diagnose calls so that a warm Matrix
// allocates little.
type fit struct {
	// Cells in row order: the cells of rows[k] are start[k] ≤ c < start[k+1].
	rows  []int32   // node id of each row's reporter
	start []int32   // len(rows)+1 offsets
	peer  []int32   // by cell: the receiver's node id
	y     []float64 // by cell: log latency
	w     []float64 // by cell: weight, √samples
	res   []float64 // by cell: residual

	// Cells in column order: the cells of node j's column are
	// byCol[colStart[j]:colStart[j+1]].
	colStart []int32
	byCol    []int32
	next     []int32 // scratch of the counting sort

	mu   float64
	s, r []float64 // by node id: sender and receiver effects
	nRow []int32   // by node id: cells in its row
	nCol []int32   // by node id: cells in its column

	sigma float64 // robust standard deviation of the residuals
	// By node id: the same of the residuals of its row and of its column.
	rowSigma, colSigma []float64

	// With a topology (rack.go): each node's rack number, -1 for none;
	// the cells inside a rack and their common effect delta; each node's
	// pairs across its rack's edge, cross[crossStart[id]:crossStart[id+1]].
	rackOf     []int32
	inside     []int32
	delta      float64
	crossStart []int32
	cross      []pair

	pairs []pair    // scratch of weightedMedian
	xs    []float64 // scratch of center
}

// load copies the cells valid at instant t with enough samples.
func (f *fit) load(m *Matrix, t time.Duration) {
	n := m.nodes.size()
	f.rows, f.start = f.rows[:0], append(f.start[:0], 0)
	cells := m.Len()
	f.peer = slices.Grow(f.peer[:0], cells)
	f.y, f.w = slices.Grow(f.y[:0], cells), slices.Grow(f.w[:0], cells)
	f.rows, f.start = slices.Grow(f.rows, len(m.rows)), slices.Grow(f.start, len(m.rows)+1)
	f.s, f.r = resize(f.s, n), resize(f.r, n)
	f.nRow, f.nCol = resize(f.nRow, n), resize(f.nCol, n)
	for _, r := range m.rows {
		before := len(f.peer)
		for _, c := range r.cells {
			if !m.valid(c, t) || int(c.samples) < m.cfg.MinSamples {
				continue
			}
			f.peer = append(f.peer, c.peer)
			f.y = append(f.y, math.Log(min(max(c.latencyMs, minLatencyMs), maxLatencyMs)))
			f.w = append(f.w, math.Sqrt(max(float64(c.samples), 1)))
			f.nCol[c.peer]++
		}
		if len(f.peer) > before {
			f.rows = append(f.rows, r.reporter)
			f.start = append(f.start, int32(len(f.peer)))
			f.nRow[r.reporter] = int32(len(f.peer) - before)
		}
	}
	f.res = resize(f.res, len(f.y))
	// Column order by counting sort on the receiver.
	f.colStart = resize(f.colStart, n+1)
	for j := range n {
		f.colStart[j+1] = f.colStart[j] + f.nCol[j]
	}
	f.byCol = resize(f.byCol, len(f.peer))
	f.next = append(f.next[:0], f.colStart[:n]...)
	for c, j := range f.peer {
		f.byCol[f.next[j]] = int32(c)
		f.next[j]++
	}
}

// resize returns s with length n, zeroed, reusing its backing array.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
