package outlier

import (
	"math"
	"math/bits"
)

//go:generate go run network_gen.go

// This file computes the median and the median absolute deviation of a few
// latencies from one sorted copy of them, with no second sort for the
// deviations.

// sortedMax is the largest n for which Detect sorts instead of selecting:
// up to networkMax latencies go through one sorting network, up to twice
// as many through two, one for each half, and a merge.
const sortedMax = 2 * networkMax

// sortedStatistics returns the median of the latencies of samples (at most
// sortedMax of them), the median of their absolute deviations from it, and
// the largest latency.
func (d *Detector) sortedStatistics(samples []Sample) (median, dev, maxMs float64) {
	n := len(samples)
	if cap(d.sorted) < 2*sortedMax+4 {
		d.sorted = make([]float64, 2*sortedMax+4)
	}
	sorted := d.sorted[:n]
	var ok bool
	if n <= networkMax {
		ok = sortNetwork[n](sorted, samples)
	} else {
		ok = mergeNetworks(sorted, d.sorted[sortedMax:], samples)
	}
	if !ok {
		keys := d.keyBuffer(n)
		loadKeys(keys, samples)
		insertionSort(keys)
		for i, k := range keys {
			sorted[i] = value(k) + 0 // -0 + 0 is +0
		}
	}
	median = medianOfSorted(sorted)
	return median, madOfSorted(sorted, median), sorted[n-1]
}

// mergeNetworks stores the latencies of samples (more than networkMax, at
// most sortedMax of them) in dst in ascending order and reports true,
// unless one of them has its sign bit set. It sorts each half with a
// network, in scratch (len(samples)+4 long), and merges them.
func mergeNetworks(dst, scratch []float64, samples []Sample) bool {
	n := len(samples)
	h := n / 2
	a, b := scratch[:h+2], scratch[h+2:n+4]
	if !sortNetwork[h](a, samples[:h]) || !sortNetwork[n-h](b, samples[h:]) {
		return false
	}
	// Both halves end in two sentinels whose bits are above those of
	// every latency, so that the merge never takes from a half that is
	// used up and can read one element ahead of each head.
	sentinel := math.Float64frombits(math.MaxUint64)
	a[h], a[h+1], b[n-h], b[n-h+1] = sentinel, sentinel, sentinel, sentinel
	x, y := math.Float64bits(a[0]), math.Float64bits(b[0])
	i, j := 0, 0
	for o := range dst[:n] {
		// The next heads are read before the comparison settles which
		// one moves, so that the loads are off its critical path.
		nx, ny := math.Float64bits(a[i+1]), math.Float64bits(b[j+1])
		_, fromB := bits.Sub64(y, x, 0)
		dst[o] = math.Float64frombits(min(x, y))
		mask := -fromB // all ones when the head of b moves
		x = x&mask | nx&^mask
		y = ny&mask | y&^mask
		j += int(fromB)
		i += 1 - int(fromB)
	}
	return true
}

// medianOfSorted is Hadoop's median of the sorted values a (len(a) > 0):
// the element at n/2, averaged with the one before it when n is even.
// Reference: OutlierDetector.computeMedian.
func medianOfSorted(a []float64) float64 {
	k := len(a) / 2
	m := a[k]
	if len(a)%2 == 0 {
		m += a[k-1]
		m /= 2
	}
	return m
}

// madOfSorted is the median of |v - m| over the sorted values a, where m is
// their median: the value Hadoop gets by sorting the deviations and taking
// their median, found here with a binary search.
//
// Reference: OutlierDetector.computeMad.
//
// With k = n/2, Hadoop's median of the deviations is the (k+1)-th smallest
// of them, averaged with the k-th when n is even. The k+1 smallest are
// those of k+1 consecutive elements a[lo], …, a[lo+k]: the deviations fall
// towards m and rise after it, so any element between two that lie within
// t of m lies within t too. Such a window spans the middle of a, so
// a[lo] ≤ m ≤ a[lo+k] and the largest deviation in it is m - a[lo] or
// a[lo+k] - m, both equal to Java's Math.abs(a - m) to the bit since
// rounding is symmetric. The (k+1)-th smallest deviation is therefore the
// least, over lo, of that largest one; as lo grows the left deviation
// shrinks and the right one grows, so the least is where they cross,
// which a binary search finds. Rounding is monotone, so all of this holds
// in floating point too.
func madOfSorted(a []float64, m float64) float64 {
	n := len(a)
	k := n / 2
	w := n - k // windows: lo from 0 to w-1
	// lo becomes the first window whose left deviation is at most its
	// right one, or w when there is none; it is in lo…lo+size throughout.
	lo := 0
	for size := w; size > 1; {
		half := size / 2
		if m-a[lo+half-1] > a[lo+half-1+k]-m {
			lo += half
		}
		size -= half
	}
	if m-a[lo] > a[lo+k]-m {
		lo++
	}
	// The least largest deviation is the right one of window lo or the
	// left one of window lo-1.
	b := min(lo, w-1)
	if lo > 0 && m-a[lo-1] < a[b+k]-m {
		b = lo - 1
	}
	dev := max(m-a[b], a[b+k]-m)
	if n%2 == 1 {
		return dev
	}
	// The k smallest deviations are those of window b without the end
	// whose deviation is the largest; the k-th smallest is the largest of
	// them, at one of the new ends (which may lie on either side of m).
	var next float64
	if m-a[b] >= a[b+k]-m {
		next = max(math.Abs(a[b+1]-m), a[b+k]-m)
	} else {
		next = max(m-a[b], math.Abs(a[b+k-1]-m))
	}
	dev += next
	return dev / 2
}
