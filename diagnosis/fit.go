package diagnosis

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// minLatencyMs replaces latencies below it (a zero, say) before taking
// logarithms: one microsecond, below what any agent measures.
const minLatencyMs = 1e-3

// Median polish stops after maxSweeps sweeps, or once a sweep moves the
// sum of absolute residuals by less than sweepTolerance of it.
const (
	maxSweeps      = 10
	sweepTolerance = 1e-3
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
			f.y = append(f.y, math.Log(max(c.latencyMs, minLatencyMs)))
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

// polish runs Tukey's median polish with weighted medians, as R's
// medpolish does on a full table, over the cells present: alternately
// sweep each row's median residual into its sender effect and each
// column's into its receiver effect, moving the effects' medians into mu.
// With cells inside racks listed in f.inside, each sweep ends by moving
// their median residual into delta, the effect of staying inside a rack.
func (f *fit) polish() {
	if len(f.y) == 0 {
		panic("BUG: diagnosis: polish of an empty matrix")
	}
	copy(f.res, f.y)
	f.delta = 0
	f.mu = f.median(f.res, f.w)
	floats.AddConst(-f.mu, f.res)
	prev := math.Inf(1)
	for range maxSweeps {
		for k, i := range f.rows {
			lo, hi := f.start[k], f.start[k+1]
			d := f.median(f.res[lo:hi], f.w[lo:hi])
			f.s[i] += d
			floats.AddConst(-d, f.res[lo:hi])
		}
		f.center(f.r, f.nCol)
		for j := range f.nCol {
			cells := f.byCol[f.colStart[j]:f.colStart[j+1]]
			if len(cells) == 0 {
				continue
			}
			d := f.medianOf(cells)
			f.r[j] += d
			for _, c := range cells {
				f.res[c] -= d
			}
		}
		f.center(f.s, f.nRow)
		if len(f.inside) > 0 {
			d := f.medianOf(f.inside)
			f.delta += d
			for _, c := range f.inside {
				f.res[c] -= d
			}
		}
		sum := floats.Norm(f.res, 1)
		if math.Abs(prev-sum) <= sweepTolerance*sum {
			break
		}
		prev = sum
	}
	f.sigma = 1.4826 * f.absMedian()
	f.scales()
}

// noisyNode is how much larger than the residuals' robust deviation that
// of a node's row or column must be for the node to count as noisy. The
// deviation of a row of 40 cells is itself uncertain by about 17 %, so
// 1.5 is about three of those: normal nodes keep the cluster's deviation.
const noisyNode = 1.5

// pairSigma is the robust deviation that the residual of (i, j) is judged
// by: the cluster's, or the larger of those of i's row and j's column
// where one of them is noisy.
func (f *fit) pairSigma(i, j int32) float64 {
	s := f.sigma
	for _, own := range [2]float64{f.rowSigma[i], f.colSigma[j]} {
		if own > noisyNode*f.sigma {
			s = max(s, own)
		}
	}
	return s
}

// scales computes the robust standard deviation of the residuals of each
// row and each column: a noisy node's pairs stray further from the fit
// than others', without being bad links.
func (f *fit) scales() {
	f.rowSigma, f.colSigma = resize(f.rowSigma, len(f.nRow)), resize(f.colSigma, len(f.nCol))
	for k, i := range f.rows {
		f.pairs = f.pairs[:0]
		for c := f.start[k]; c < f.start[k+1]; c++ {
			f.pairs = append(f.pairs, pair{math.Abs(f.res[c]), f.w[c]})
		}
		f.rowSigma[i] = 1.4826 * weightedMedian(f.pairs)
	}
	for j := range f.nCol {
		cells := f.byCol[f.colStart[j]:f.colStart[j+1]]
		if len(cells) == 0 {
			continue
		}
		f.pairs = f.pairs[:0]
		for _, c := range cells {
			f.pairs = append(f.pairs, pair{math.Abs(f.res[c]), f.w[c]})
		}
		f.colSigma[j] = 1.4826 * weightedMedian(f.pairs)
	}
}

// center moves the median of the effects of the nodes with cells into mu.
func (f *fit) center(effect []float64, count []int32) {
	f.xs = f.xs[:0]
	for id, n := range count {
		if n > 0 {
			f.xs = append(f.xs, effect[id])
		}
	}
	if len(f.xs) == 0 {
		return
	}
	slices.Sort(f.xs)
	d := stat.Quantile(0.5, stat.Empirical, f.xs, nil)
	f.mu += d
	for id, n := range count {
		if n > 0 {
			effect[id] -= d
		}
	}
}

// medianOf is the weighted median residual of the cells given by index.
func (f *fit) medianOf(cells []int32) float64 {
	f.pairs = f.pairs[:0]
	for _, c := range cells {
		f.pairs = append(f.pairs, pair{f.res[c], f.w[c]})
	}
	return f.pairMedian()
}

// median is the weighted median of x with weights w.
func (f *fit) median(x, w []float64) float64 {
	f.pairs = f.pairs[:0]
	for i := range x {
		f.pairs = append(f.pairs, pair{x[i], w[i]})
	}
	return f.pairMedian()
}

// pairMedian is the weighted median of f.pairs.
func (f *fit) pairMedian() float64 { return weightedMedian(f.pairs) }

// absMedian is the median absolute residual (unweighted).
func (f *fit) absMedian() float64 {
	f.pairs = f.pairs[:0]
	for _, e := range f.res {
		f.pairs = append(f.pairs, pair{math.Abs(e), 1})
	}
	return weightedMedian(f.pairs)
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
