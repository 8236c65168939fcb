package outlier

import (
	"math"
	"math/bits"
	"slices"
)

// This file finds Hadoop's median and median absolute deviation by
// selection rather than by sorting, on keys rather than on float64 values.
//
// A key is a float64's bit pattern mapped so that unsigned integer order is
// the numeric order of the values, negative values included. Integer
// comparison is a total order, so NaN, the caller's error, cannot make a
// loop spin or an index run off a slice: it gets a place in the order and
// gives a meaningless but safe answer.

// insertionMax is the length up to which selectKth sorts instead of
// partitioning.
const insertionMax = 16

// key maps v to a uint64 with the same order as the numeric order of v.
func key(v float64) uint64 {
	b := math.Float64bits(v)
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// value is the inverse of key.
func value(k uint64) float64 {
	return math.Float64frombits(k ^ (uint64(int64(^k)>>63) | 1<<63))
}

// statistics returns Hadoop's median of the latencies of samples (at least
// one) and the median of their absolute deviations from it, not yet scaled,
// using keys (as long as samples) as scratch.
//
// Reference: OutlierDetector.computeMedian, computeMad.
func statistics(keys []uint64, samples []Sample) (median, dev float64) {
	for i, s := range samples {
		keys[i] = key(s.LatencyMs + 0) // -0 + 0 is +0
	}
	median = medianOf(keys)
	for i, k := range keys {
		keys[i] = key(math.Abs(value(k) - median))
	}
	return median, medianOf(keys)
}

// medianOf is Hadoop's median of the values of the keys a (len(a) > 0): the
// value a sort would put at n/2, averaged with the one it would put at
// n/2-1 when n is even, in Java's order of operations. It reorders a.
func medianOf(a []uint64) float64 {
	k := len(a) / 2
	selectKth(a, k, 2*bits.Len(uint(len(a))))
	m := value(a[k])
	if len(a)%2 == 0 {
		m += value(slices.Max(a[:k])) // a[:k] ≤ a[k]: its largest is next below
		m /= 2
	}
	return m
}

// selectKth reorders a so that a[k] is the element a sort would put there,
// everything before it ≤ a[k] and everything after it ≥ a[k]. It is
// introselect: quickselect with a pivot from three or nine samples, in
// expected O(n) time, which sorts what is left after budget rounds; a
// budget of 2 log₂ n keeps every input within O(n log n).
func selectKth(a []uint64, k, budget int) {
	lo, hi := 0, len(a)
	// Invariant: a[:lo] ≤ a[lo:hi] ≤ a[hi:] and lo ≤ k < hi.
	for ; hi-lo > insertionMax; budget-- {
		if budget == 0 {
			slices.Sort(a[lo:hi])
			return
		}
		p := pivot(a[lo:hi])
		lt := lo + partitionLess(a[lo:hi], p)
		switch {
		case k < lt:
			hi = lt // a[lt:hi] holds p at least: this shrinks
		case lt > lo:
			lo = lt
		default:
			// p is the smallest value left: split off its copies, so
			// that many equal values cannot stall the search.
			eq := lo + partitionLessEq(a[lo:hi], p)
			if k < eq {
				return // a[lo:eq] are all p
			}
			lo = eq
		}
	}
	insertionSort(a[lo:hi])
}

// partitionLess moves the elements < p to the front of a and returns how
// many there are. It is Lomuto's partition without a branch on the
// comparison (the borrow of x − p is 1 exactly when x < p): on unordered
// data that branch would be mispredicted half the time.
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

// pivot picks a pivot value from a (len(a) > insertionMax): the median of
// the first, middle and last elements, or for longer slices Tukey's
// ninther, the median of three such medians.
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
