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
// below +0; the medians turn a zero result into +0). Integer comparison is a
// total order, so NaN, the caller's error, cannot make a loop spin or an
// index run off a slice: it sorts above +Inf and gives a meaningless but
// safe answer.

// sortedMax is the largest n for which Detect sorts (insertion sort) instead
// of selecting. Below it, sorting once and merging the deviations beats two
// selections.
const sortedMax = 24

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

// medianSorted is Hadoop's median of the values of the sorted keys a:
// the element at n/2, averaged with the one before it when n is even.
// Reference: OutlierDetector.computeMedian.
func medianSorted(a []uint64) float64 {
	k := len(a) / 2
	m := value(a[k])
	if len(a)%2 == 0 {
		m += value(a[k-1])
		m /= 2
	}
	return positiveZero(m)
}

// positiveZero turns -0 into +0 and leaves every other value alone.
func positiveZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

// medianDeviationSorted is the median of |v - m| over the values v of the
// sorted keys a, where m is their median, computed as Hadoop does (the
// deviations sorted, then medianSorted) but without a second sort: the
// deviations of a sorted list fall to their smallest near m and rise on both
// sides, so the deviations below m read backwards and those above m read
// forwards are two sorted runs, and merging them up to position n/2 finds
// the same elements a sort would put there. Rounding is monotone, so the
// runs stay sorted in floating point too.
func medianDeviationSorted(a []uint64, m float64) float64 {
	n := len(a)
	k := n / 2
	// s splits a into values ≤ m (before s) and values ≥ m (from s on).
	s := k
	for s > 0 && value(a[s-1]) > m {
		s--
	}
	for s < n && value(a[s]) < m {
		s++
	}
	// dl and dr are the next deviations of the two runs, +Inf past
	// their ends. Taking an end's +Inf when the other run offers a real
	// +Inf is harmless: from there on every deviation is +Inf.
	inf := math.Inf(1)
	dev := func(i int) float64 { return math.Abs(value(a[i]) - m) }
	l, r := s-1, s
	dl, dr := inf, inf
	if l >= 0 {
		dl = dev(l)
	}
	if r < n {
		dr = dev(r)
	}
	var prev, cur float64
	for range k + 1 {
		prev = cur
		if dl <= dr {
			cur, dl = dl, inf
			if l--; l >= 0 {
				dl = dev(l)
			}
		} else {
			cur, dr = dr, inf
			if r++; r < n {
				dr = dev(r)
			}
		}
	}
	if n%2 == 0 {
		cur += prev
		cur /= 2
	}
	return cur
}

// medianSelect is medianSorted(sorted a) found by selection in expected O(n)
// time; it reorders a.
func medianSelect(a []uint64) float64 {
	k := len(a) / 2
	selectKth(a, k, selectBudget(len(a)))
	m := value(a[k])
	if len(a)%2 == 0 {
		// Everything before k is ≤ a[k]; the largest of it is the
		// element a sort would put at k-1.
		lo := a[0]
		for _, x := range a[1:k] {
			lo = max(lo, x)
		}
		m += value(lo)
		m /= 2
	}
	return positiveZero(m)
}

// selectBudget is how many partitioning rounds selectKth may spend on n
// elements before it gives up on its pivots and sorts what is left, which
// keeps the worst case at O(n log n).
func selectBudget(n int) int { return 2 * bits.Len(uint(n)) }

// selectKth reorders a so that a[k] is the element a sort would put there,
// everything before it is ≤ a[k] and everything after it is ≥ a[k]
// (introselect: quickselect with a median-of-3 or ninther pivot, falling
// back to a sort of the remaining range after budget rounds).
func selectKth(a []uint64, k, budget int) {
	lo, hi := 0, len(a)
	// Invariant: a[:lo] ≤ a[lo:hi] ≤ a[hi:], and lo ≤ k < hi.
	for hi-lo > selectCutoff {
		if budget == 0 {
			slices.Sort(a[lo:hi])
			return
		}
		budget--
		p := pivot(a[lo:hi])
		lt := partitionLess(a[lo:hi], p)
		if k < lo+lt {
			hi = lo + lt
			continue
		}
		if lt > 0 {
			lo += lt
			continue
		}
		// p is the smallest value left: split off its copies, so that
		// many equal values cannot stall the search.
		eq := partitionLessEq(a[lo:hi], p)
		if k < lo+eq {
			return
		}
		lo += eq
	}
	insertionSort(a[lo:hi])
}

// partitionLess moves the elements < p to the front of a and returns how
// many there are. It is Lomuto's partition without a branch on the
// comparison (the borrow of x − p is 1 exactly when x < p), since on
// unordered data that branch is mispredicted half the time.
func partitionLess(a []uint64, p uint64) int {
	i := 0
	for j, x := range a {
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
