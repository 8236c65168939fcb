package outlier

import (
	"math"
	"math/bits"
)

// This file computes the median and the median absolute deviation of up
// to sampledMin latencies by selection, with the first partitioning round
// of each selection done while the keys are written: one pass loads the
// latencies and partitions them, one computes the deviations and
// partitions them.
//
// When no latency has its sign bit set, the normal case, the bits of the
// latencies are their own keys: non-negative float64 values order as their
// bit patterns do. So do the deviations, which are never negative.

// selectedStatistics returns the median of the latencies of samples (at
// least 9 of them) and the median of their absolute deviations from it,
// found by selection in keys (len(samples) of them), which it overwrites.
func selectedStatistics(keys []uint64, samples []Sample) (median, dev float64) {
	n := len(samples)
	k, budget := n/2, selectBudget(n)
	var nine [9]uint64
	for j, i := range nineAt(n) {
		nine[j] = math.Float64bits(samples[i].LatencyMs)
	}
	p := ninther(nine)
	lt, sign := partitionLoad(keys, samples, p)
	if sign>>63 == 0 {
		median = medianOf(keys, selectRest(keys, k, budget-1, p, lt), math.Float64frombits)
	} else {
		loadKeys(keys, samples)
		median = medianSelect(keys, value)
		for i, x := range keys {
			keys[i] = math.Float64bits(value(x)) // back to bits: the deviations read them
		}
	}
	for j, i := range nineAt(n) {
		nine[j] = deviationBits(keys[i], median)
	}
	p = ninther(nine)
	lt = partitionDeviations(keys, median, p)
	return median, medianOf(keys, selectRest(keys, k, budget-1, p, lt), math.Float64frombits)
}

// medianOf is Hadoop's median given the keys a with the element a sort
// would put at n/2 in place and the one it would put at n/2-1 in below.
func medianOf(a []uint64, below uint64, toValue func(uint64) float64) float64 {
	m := toValue(a[len(a)/2])
	if len(a)%2 == 0 {
		m += toValue(below)
		m /= 2
	}
	return positiveZero(m)
}

// deviationBits is the bits of |v - m|, where b is the bits of v.
func deviationBits(b uint64, m float64) uint64 {
	return math.Float64bits(math.Abs(math.Float64frombits(b) - m))
}

// nineAt returns nine evenly spaced places among n (n ≥ 9).
func nineAt(n int) [9]int {
	s := n / 9
	var at [9]int
	for j := range at {
		at[j] = j*s + s/2
	}
	return at
}

// ninther is Tukey's ninther of x: the median of the medians of its three
// thirds.
func ninther(x [9]uint64) uint64 {
	return median3(median3(x[0], x[1], x[2]), median3(x[3], x[4], x[5]), median3(x[6], x[7], x[8]))
}

// partitionLoad writes the bits of the latencies of samples to keys with
// those < p first, as partitionLess does, and returns how many those are
// and the bitwise or of all the bits.
func partitionLoad(keys []uint64, samples []Sample, p uint64) (lt int, or uint64) {
	keys = keys[:len(samples)]
	for j := range samples {
		x := math.Float64bits(samples[j].LatencyMs)
		or |= x
		keys[j] = keys[lt]
		keys[lt] = x
		_, less := bits.Sub64(x, p, 0)
		lt += int(less)
	}
	return lt, or
}

// partitionDeviations replaces the bits of each value in a by the bits of
// its absolute deviation from m, with those < p first, as partitionLess
// does (two at a time), and returns how many those are.
func partitionDeviations(a []uint64, m float64, p uint64) int {
	lt, j := 0, 0
	for ; j+1 < len(a); j += 2 {
		x, y := deviationBits(a[j], m), deviationBits(a[j+1], m)
		a[j] = a[lt]
		a[lt] = x
		_, less := bits.Sub64(x, p, 0)
		lt += int(less)
		a[j+1] = a[lt]
		a[lt] = y
		_, less = bits.Sub64(y, p, 0)
		lt += int(less)
	}
	if j < len(a) {
		x := deviationBits(a[j], m)
		a[j] = a[lt]
		a[lt] = x
		_, less := bits.Sub64(x, p, 0)
		lt += int(less)
	}
	return lt
}
