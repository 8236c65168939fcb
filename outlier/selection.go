package outlier

import (
	"math"
	"math/bits"
	"slices"
)

// This file finds order statistics without sorting everything, on keys
// rather than on float64 values.
//
// A key is a float64's bit pattern mapped so that unsigned integer order is
// the numeric order of the values (negative values included, and -0 just
// below +0; the medians turn a zero result into +0). For values that are
// all ≥ +0 the bit patterns themselves are such keys, and Detect uses them
// when no sign bit is set. Integer comparison is a total order, so NaN, the
// caller's error, cannot make a loop spin or an index run off a slice: it
// sorts above +Inf and gives a meaningless but safe answer.

// selectCutoff is the length below which selectKth stops partitioning and
// sorts what is left.
const selectCutoff = 8

// key maps v to a uint64 with the same order as the numeric order of v.
func key(v float64) uint64 {
	b := math.Float64bits(v)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// value is the inverse of key.
func value(k uint64) float64 {
	return math.Float64frombits(k ^ (uint64(int64(^k)>>63) | 1<<63))
}

// loadKeys sets keys[i] to the key of samples[i].LatencyMs.
func loadKeys(keys []uint64, samples []Sample) {
	for i := range samples {
		keys[i] = key(samples[i].LatencyMs)
	}
}

// positiveZero turns -0 into +0 and leaves every other value alone.
func positiveZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

// medianSelect is Hadoop's median of the values of the keys a, found by
// selection in expected O(n) time; it reorders a. toValue turns a key into
// its value.
func medianSelect(a []uint64, toValue func(uint64) float64) float64 {
	return medianOf(a, selectKth(a, len(a)/2, selectBudget(len(a))), toValue)
}

// selectBudget is how many partitioning rounds selectKth may spend on n
// elements before it gives up on its pivots and sorts what is left, which
// keeps the worst case at O(n log n).
func selectBudget(n int) int { return 2 * bits.Len(uint(n)) }

// selectKth reorders a so that a[k] is the element a sort would put there,
// everything before it is ≤ a[k] and everything after it is ≥ a[k]
// (introselect: quickselect with a pivot from three or nine samples,
// falling back to a sort of the remaining range after budget rounds). It
// returns the element a sort would put at k-1 (0 when k is 0), which an
// even number of values needs for its median.
func selectKth(a []uint64, k, budget int) (below uint64) {
	switch {
	case len(a) <= selectCutoff:
		insertionSort(a)
		return elementBelow(a, k, 0, 0)
	case budget == 0:
		slices.Sort(a)
		return elementBelow(a, k, 0, 0)
	}
	p := pivot(a)
	return selectRest(a, k, budget-1, p, partitionLess(a, p))
}

// selectRest is selectKth after its first round: a is partitioned around
// the pivot p, with the lt elements < p first.
func selectRest(a []uint64, k, budget int, p uint64, lt int) (below uint64) {
	lo, hi := 0, len(a)
	// Invariant: a[:lo] ≤ a[lo:hi] ≤ a[hi:], lo ≤ k < hi, and the
	// largest of a[:lo] is in a[prev:lo] (when lo > 0).
	prev := 0
	for {
		switch {
		case k < lo+lt:
			hi = lo + lt
		case lt > 0:
			prev, lo = lo, lo+lt
		default:
			// p is the smallest value left: split off its copies, so
			// that many equal values cannot stall the search.
			eq := partitionLessEq(a[lo:hi], p)
			if k < lo+eq {
				return elementBelow(a, k, lo, prev) // a[lo:k+1] are all p
			}
			prev, lo = lo, lo+eq
		}
		if hi-lo <= selectCutoff {
			break
		}
		if budget == 0 {
			slices.Sort(a[lo:hi])
			return elementBelow(a, k, lo, prev)
		}
		budget--
		p = pivotFor(a[lo:hi], k-lo)
		lt = partitionLess(a[lo:hi], p)
	}
	insertionSort(a[lo:hi])
	return elementBelow(a, k, lo, prev)
}

// elementBelow is the element a sort of a would put at k-1 (0 when k is
// 0), given a[lo:k+1] in order, a[:lo] ≤ a[lo:] and the largest of a[:lo]
// in a[prev:lo]: a[k-1] when lo < k, else the largest of a[prev:k].
func elementBelow(a []uint64, k, lo, prev int) uint64 {
	if k == 0 {
		return 0
	}
	if lo < k {
		return a[k-1]
	}
	m := a[prev]
	for _, x := range a[prev+1 : k] {
		m = max(m, x)
	}
	return m
}

// partitionLess moves the elements < p to the front of a and returns how
// many there are. It is Lomuto's partition without a branch on the
// comparison (the borrow of x − p is 1 exactly when x < p), since on
// unordered data that branch is mispredicted half the time, unrolled to
// take two elements a turn.
func partitionLess(a []uint64, p uint64) int {
	i, j := 0, 0
	for ; j+1 < len(a); j += 2 {
		x, y := a[j], a[j+1]
		a[j] = a[i]
		a[i] = x
		_, less := bits.Sub64(x, p, 0)
		i += int(less)
		a[j+1] = a[i]
		a[i] = y
		_, less = bits.Sub64(y, p, 0)
		i += int(less)
	}
	if j < len(a) {
		x := a[j]
		a[j] = a[i]
		a[i] = x
		_, less := bits.Sub64(x, p, 0)
		i += int(less)
	}
	return i
}

// partitionLessEq moves the elements ≤ p to the front of a and returns how
// many there are, as partitionLess does.
func partitionLessEq(a []uint64, p uint64) int {
	i := 0
	for j, x := range a {
		a[j] = a[i]
		a[i] = x
		_, greater := bits.Sub64(p, x, 0)
		i += 1 - int(greater)
	}
	return i
}

// pivot picks a pivot value from a (len(a) > selectCutoff): the median of the
// first, middle and last elements, or for longer slices Tukey's ninther,
// the median of three such medians.
func pivot(a []uint64) uint64 {
	n := len(a)
	if n < 64 {
		return median3(a[0], a[n/2], a[n-1])
	}
	s := n / 8
	return median3(
		median3(a[0], a[s], a[2*s]),
		median3(a[n/2-s], a[n/2], a[n/2+s]),
		median3(a[n-1-2*s], a[n-1-s], a[n-1]),
	)
}

// pivotFor picks a pivot from a for the element a sort would put at t:
// for short slices, whose t is often near an end after a first round, the
// smallest or largest of three samples when t is in the outer fifth, so
// that the part left over is small.
func pivotFor(a []uint64, t int) uint64 {
	n := len(a)
	if n >= 64 {
		return pivot(a)
	}
	x, y, z := a[n/4], a[n/2], a[n-1-n/4]
	lo, hi := min(x, y, z), max(x, y, z)
	switch {
	case 5*t < n:
		return lo
	case 5*t >= 4*n:
		return hi
	}
	return median3(x, y, z)
}

// median3 returns the middle one of x, y and z.
func median3(x, y, z uint64) uint64 {
	return max(min(x, y), min(max(x, y), z))
}

// insertionSort sorts a short slice in place.
func insertionSort(a []uint64) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}
