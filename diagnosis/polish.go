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
