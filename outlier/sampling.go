package outlier

import (
	"math"
	"math/bits"
)

// This file finds the median of many values in about one pass over them,
// after Floyd and Rivest ("Expected time bounds for selection", CACM 18(3),
// 1975): the order statistics of a small sample give two keys p1 ≤ p2 that
// very likely enclose the median; one pass over the input counts the keys
// below p1 and keeps only those within [p1, p2]; the median is then found
// among these few candidates. When the guess misses (bad luck, or an input
// built against the fixed sampling positions) the caller falls back to a
// full selection, so every answer is still exact.

// sampledMin is the smallest n for which Detect samples. Below it, the
// selection with its first rounds fused into the loads is faster: by about
// a quarter at 1 000 and 10 000 latencies, still a little at 50 000, while
// the sample wins from about 70 000 on.
const sampledMin = 1 << 15

// bracket is the pair of keys that likely enclose the median ranks.
type bracket struct{ lo, hi uint64 }

// medianBracket returns keys p1 ≤ p2 such that the ranks n/2 and, for even
// n, n/2-1 of the n keys that sample (a sample of them taken at even
// spacing) stands for very likely lie between the ranks of p1 and p2. It
// reorders sample.
func medianBracket(sample []uint64, n int) bracket {
	s := len(sample)
	lo, hi := medianRanks(n)
	// Floyd–Rivest's margin: a few standard deviations of the sample
	// rank of the population's median.
	delta := int(math.Sqrt(float64(s)*math.Log(float64(n)))*bracketScale) + 1
	j1 := int(int64(lo)*int64(s)/int64(n)) - delta // int64: lo*s overflows 32 bits
	j2 := int(int64(hi)*int64(s)/int64(n)) + delta
	b := bracket{lo: 0, hi: math.MaxUint64} // an open end cannot miss
	if j2 < s-1 {
		selectKth(sample, j2, selectBudget(s))
		b.hi = sample[j2]
		sample = sample[:j2+1]
	}
	if j1 > 0 {
		selectKth(sample, j1, selectBudget(len(sample)))
		b.lo = sample[j1]
	}
	return b
}

// bracketScale scales the margin of medianBracket: wider means more
// candidates, narrower more misses. At 0.5, on random latencies, a few
// brackets in 1000 miss at n = 1024 and next to none from n = 10 000 on,
// while the candidates are about 28 % of the input at n = 1024, 14 % at
// 10 000 and 8 % at 100 000.
const bracketScale = 0.5

// sampleSize is how many of n keys medianBracket samples: n^(2/3), which
// balances the cost of selecting in the sample against the number of
// candidates (Floyd and Rivest).
func sampleSize(n int) int {
	c := math.Cbrt(float64(n))
	return int(c * c)
}

// medianRanks returns the ranks (0-based, in sorted order) whose elements
// make Hadoop's median of n values: n/2, averaged with n/2-1 when n is even.
func medianRanks(n int) (lo, hi int) {
	hi = n / 2
	lo = hi
	if n%2 == 0 {
		lo--
	}
	return lo, hi
}

// keep compacts the candidate k into cand: it counts k into below when
// k < lo, and writes it at cand[c] and advances c when lo ≤ k ≤ lo+width;
// without a branch, since which happens is unpredictable.
func keep(cand []uint64, c, below int, k, lo, width uint64) (int, int) {
	cand[c] = k
	d, less := bits.Sub64(k, lo, 0) // d wraps around when k < lo
	_, out := bits.Sub64(width, d, 0)
	return c + 1 - int(out), below + int(less)
}

// medianOfCandidates finds Hadoop's median of n keys given the candidates
// kept by a bracket pass, below of them under the bracket. It reorders cand
// and reports false when the median ranks are not among the candidates.
func medianOfCandidates(cand []uint64, n, below int) (float64, bool) {
	lo, hi := medianRanks(n)
	if lo < below || hi >= below+len(cand) {
		return 0, false
	}
	k := hi - below
	l := selectKth(cand, k, selectBudget(len(cand)))
	m := value(cand[k])
	if lo < hi {
		m += value(l) // rank lo, which is among the candidates
		m /= 2
	}
	return positiveZero(m), true
}

// sampledStatistics returns the median of the latencies of samples (at
// least sampledMin of them) and the median of their absolute deviations from
// it, each from a bracket guessed from a sample, or by selection among all
// of them when the guess misses.
func (d *Detector) sampledStatistics(samples []Sample) (median, dev float64) {
	keys := d.keyBuffer(len(samples))
	var ok bool
	if median, ok = d.sampledMedian(samples); !ok {
		loadKeys(keys, samples)
		median = medianSelect(keys, value)
	}
	if dev, ok = d.sampledMedianDeviation(samples, median); !ok {
		for i := range samples {
			keys[i] = key(math.Abs(samples[i].LatencyMs - median))
		}
		dev = medianSelect(keys, value)
	}
	return median, dev
}

// sampledMedian is Hadoop's median of the latencies of samples, or false
// when the bracket missed.
func (d *Detector) sampledMedian(samples []Sample) (float64, bool) {
	n := len(samples)
	sample := d.sampleBuffer(n)
	stride := n / len(sample)
	for i := range sample {
		sample[i] = key(samples[i*stride+stride/2].LatencyMs)
	}
	b := medianBracket(sample, n)
	lo, width := b.lo, b.hi-b.lo
	cand, c, below := d.keyBuffer(n), 0, 0
	for i := range samples {
		c, below = keep(cand, c, below, key(samples[i].LatencyMs), lo, width)
	}
	return medianOfCandidates(cand[:c], n, below)
}

// sampledMedianDeviation is the median of |latency - median| over samples,
// or false when the bracket missed.
func (d *Detector) sampledMedianDeviation(samples []Sample, median float64) (float64, bool) {
	n := len(samples)
	sample := d.sampleBuffer(n)
	stride := n / len(sample)
	for i := range sample {
		sample[i] = key(math.Abs(samples[i*stride+stride/2].LatencyMs - median))
	}
	b := medianBracket(sample, n)
	lo, width := b.lo, b.hi-b.lo
	cand, c, below := d.keyBuffer(n), 0, 0
	for i := range samples {
		c, below = keep(cand, c, below, key(math.Abs(samples[i].LatencyMs-median)), lo, width)
	}
	return medianOfCandidates(cand[:c], n, below)
}

// sampleBuffer returns d's scratch for a sample of n keys.
func (d *Detector) sampleBuffer(n int) []uint64 {
	s := sampleSize(n)
	if cap(d.sample) < s {
		d.sample = make([]uint64, s)
	}
	return d.sample[:s]
}
