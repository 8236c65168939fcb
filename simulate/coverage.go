package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
)

// coverage picks the peer of an agent's next probe block: the agent's
// coverage rounds (every peer once per round, a new shuffle each round).
type coverage interface {
	Next() int
}

// rounds are shuffled rounds over n peers.
type rounds struct {
	order []int
	next  int
	rng   *rand.Rand
}

func newCoverage(n int, rng *rand.Rand) coverage {
	r := &rounds{order: make([]int, n), rng: rng}
	for i := range r.order {
		r.order[i] = i
	}
	r.next = n
	return r
}

func (r *rounds) Next() int {
	if r.next == len(r.order) {
		r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
		r.next = 0
	}
	r.next++
	return r.order[r.next-1]
}

// median returns the median of x (reordered), the mean of the middle two
// for an even count.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// roundSignificant rounds x to digits significant digits.
func roundSignificant(x float64, digits int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
