package diagnosis

// pair is a value and its weight.
type pair struct{ x, w float64 }

// weightedMedian returns the smallest x of p at which the weight of the
// values ≤ x reaches half the total weight: the value gonum's
// stat.Quantile(0.5, stat.Empirical, x, w) gives on p sorted (the lower
// median, with unit weights). It finds it by selection, in expected O(n),
// reordering p. Weights must be positive and p not empty.
func weightedMedian(p []pair) float64 {
	var total float64
	for _, e := range p {
		total += e.w
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
	return rest[len(rest)-1].x // rounding left the total a hair short
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
