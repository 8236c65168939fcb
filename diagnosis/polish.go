package diagnosis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Median polish stops after maxSweeps sweeps, or once a sweep moves the
// sum of absolute residuals by less than sweepTolerance of it.
const (
	maxSweeps      = 10
	sweepTolerance = 1e-3
)

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

// noisyErrors is how many of its own standard errors the robust
// deviation of a node's row or column must exceed the cluster's by for
// the node to count as noisy. The deviation of n residuals by their
// median absolute value is uncertain by about 1.17/√n of itself (the
// MAD's efficiency at the normal is 37 %): 18 % for a row of 40 cells,
// 37 % for one of 10. Three of those, 1.55 × at 40 and 2.1 × at 10, keep
// normal nodes at the cluster's deviation whatever the number of their
// pairs. A fixed 1.5 made one row in six of a healthy 12-node cluster
// noisy by chance (now one in eighty), and a third of its pairs were
// judged by a deviation twice too large: a bad link there went unseen.
const noisyErrors = 3

// noisyLimit is the least ratio of a node's deviation over n residuals to
// the cluster's for the node to count as noisy.
func noisyLimit(n int) float64 { return 1 + noisyErrors*1.17/math.Sqrt(float64(n)) }

// pairSigma is the robust deviation that the residual of (i, j) is judged
// by: the cluster's, or the larger of those of i's row and j's column
// where one of them is noisy.
func (f *fit) pairSigma(i, j int32) float64 {
	return max(f.sigma, f.rowSigma[i], f.colSigma[j])
}

// scales computes the robust standard deviation of the residuals of each
// row and each column whose residuals are noisy (noisyLimit), 0 for the
// others: a noisy node's pairs stray further from the fit than others',
// without being bad links.
func (f *fit) scales() {
	f.rowSigma, f.colSigma = resize(f.rowSigma, len(f.nRow)), resize(f.colSigma, len(f.nCol))
	for k, i := range f.rows {
		f.pairs = f.pairs[:0]
		for c := f.start[k]; c < f.start[k+1]; c++ {
			f.pairs = appendFree(f.pairs, f.res[c], f.w[c])
		}
		f.rowSigma[i] = f.noisy(f.pairs)
	}
	for j := range f.nCol {
		cells := f.byCol[f.colStart[j]:f.colStart[j+1]]
		if len(cells) == 0 {
			continue
		}
		f.pairs = f.pairs[:0]
		for _, c := range cells {
			f.pairs = appendFree(f.pairs, f.res[c], f.w[c])
		}
		f.colSigma[j] = f.noisy(f.pairs)
	}
}

// noisy is the robust deviation of the absolute residuals p of one node
// when it is noisy, 0 otherwise.
func (f *fit) noisy(p []pair) float64 {
	if len(p) == 0 {
		return 0
	}
	own := 1.4826 * weightedMedian(p)
	if own > noisyLimit(len(p))*f.sigma {
		return own
	}
	return 0
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

// absMedian is the median absolute residual (unweighted) of the cells the
// fit left free (pinnedResidual).
func (f *fit) absMedian() float64 {
	f.pairs = f.pairs[:0]
	for _, e := range f.res {
		f.pairs = appendFree(f.pairs, e, 1)
	}
	return medianOrZero(f.pairs)
}

// pinnedResidual is the largest residual, in log latency, that counts as
// pinned at zero by the fit. Median polish makes the median cell of every
// row and column fit exactly: of a 12 × 11 matrix that is about one cell
// in six, and counted with the others those zeros make the robust
// deviation come out about 21 % below the residuals' real spread (at
// 64 nodes 3 %; at 6, half), so that a small cluster's links were judged
// against too little noise. Left out, the deviation is within 3 % of the
// real spread at 6 nodes and up (TestSigmaIgnoresPinnedCells). A residual of
// 1e-9 is a latency a billionth off its fit: no measurement is that
// close by chance.
const pinnedResidual = 1e-9

// appendFree appends |e| with weight w to p unless the fit pinned e.
func appendFree(p []pair, e, w float64) []pair {
	if math.Abs(e) <= pinnedResidual {
		return p
	}
	return append(p, pair{math.Abs(e), w})
}

// medianOrZero is the weighted median of p, or 0 when p is empty (every
// residual pinned: a row, column or matrix the fit explains exactly).
func medianOrZero(p []pair) float64 {
	if len(p) == 0 {
		return 0
	}
	return weightedMedian(p)
}
