package diagnosis

import "math"

// pair is a value and its weight.
type pair struct{ x, w float64 }

// weightedMedian returns the smallest x of p at which the weight of the
// values ≤ x reaches half the total weight: the value gonum's
// stat.Quantile(0.5, stat.Empirical, x, w) gives on p sorted (the lower
// median, with unit weights). It finds it by selection, in expected O(n),
// reordering p. The fit's weights are finite and positive; should one not
// be (NaN, infinite, zero or negative), or their sum overflow, every
// weight of p is set to 1 and the median is the unweighted one. It
// returns 0 for an empty p.
func weightedMedian(p []pair) float64 {
	if len(p) == 0 {
		return 0
	}
	total := weightSum(p)
	if !(total <= math.MaxFloat64) {
		for i := range p {
			p[i].w = 1
		}
		total = float64(len(p))
	}
	half := 0.5 * total
	var before float64 // weight of the values left of p[lo:hi], all ≤ them
	lo, hi := 0, len(p)
	for hi-lo > 12 {
		v := pivot(p[lo].x, p[lo+(hi-lo)/2].x, p[hi-1].x)
		// Three ways: p[lo:lt] < v, p[lt:gt] == v, p[gt:hi] > v.
		lt, i, gt := lo, lo, hi
		var below, equal float64
		for i < gt {
			switch x := p[i].x; {
			case x < v:
				below += p[i].w
				p[lt], p[i] = p[i], p[lt]
				lt++
				i++
			case x > v:
				gt--
				p[i], p[gt] = p[gt], p[i]
			default:
				equal += p[i].w
				i++
			}
		}
		switch {
		case before+below >= half:
			hi = lt
		case before+below+equal >= half:
			return v
		default:
			before += below + equal
			lo = gt
		}
	}
	rest := p[lo:hi]
	for i := 1; i < len(rest); i++ {
		for j := i; j > 0 && rest[j].x < rest[j-1].x; j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	for _, e := range rest {
		if before += e.w; before >= half {
			return e.x
		}
	}
	if len(rest) > 0 {
		return rest[len(rest)-1].x // rounding left the total a hair short
	}
	// Rounding again: the weight up to the values left of hi reached half
	// when a step summed it one way (hi = lt), and fell a hair short
	// summed another (lo = gt = hi), which left nothing. The answer is the
	// largest value left of hi, all in p[:lo]. Weights √samples of a few
	// sample counts, with ties among the values, meet this: a random
	// search found 47 such rows of even length in 2 million.
	x := p[0].x
	for _, e := range p[:lo] {
		x = max(x, e.x)
	}
	return x
}

// weightSum is the sum of the weights of p, or NaN if one of them is not
// finite and positive.
func weightSum(p []pair) float64 {
	var total float64
	for _, e := range p {
		if !(e.w > 0 && e.w <= math.MaxFloat64) {
			return math.NaN()
		}
		total += e.w
	}
	return total
}

// pivot is the median of three values.
func pivot(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
