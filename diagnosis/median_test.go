package diagnosis

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// TestWeightedMedianBadWeights feeds weightedMedian what the fit never
// should: weights that are NaN, infinite, zero or negative, weights whose
// sum overflows, and no values at all. It must not panic (a NaN weight
// made it index rest[-1]): with a bad weight it gives the unweighted
// lower median, and 0 for no values.
func TestWeightedMedianBadWeights(t *testing.T) {
	if got := weightedMedian(nil); got != 0 {
		t.Errorf("weightedMedian(nil) = %v, want 0", got)
	}
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1}
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range 3000 {
		n := 1 + rng.IntN(80)
		p := make([]pair, n)
		for i := range p {
			p[i] = pair{float64(rng.IntN(1 + n/3)), math.Sqrt(float64(1 + rng.IntN(1000)))}
		}
		switch k % 4 {
		case 0: // one bad weight
			p[rng.IntN(n)].w = bad[rng.IntN(len(bad))]
		case 1: // every weight the same bad one
			w := bad[rng.IntN(len(bad))]
			for i := range p {
				p[i].w = w
			}
		case 2: // bad weights here and there
			p[0].w = bad[rng.IntN(len(bad))]
			for i := range p {
				if rng.IntN(4) == 0 {
					p[i].w = bad[rng.IntN(len(bad))]
				}
			}
		default: // valid weights whose sum overflows
			for i := range p {
				p[i].w = math.MaxFloat64
			}
			if n == 1 {
				p = append(p, pair{p[0].x + 1, math.MaxFloat64})
				n++
			}
		}
		x := make([]float64, n)
		for i, e := range p {
			x[i] = e.x
		}
		slices.Sort(x)
		want := stat.Quantile(0.5, stat.Empirical, x, nil)
		in := slices.Clone(p)
		if got := weightedMedian(p); got != want {
			t.Fatalf("weightedMedian(%v) = %v, want the unweighted lower median %v", in, got, want)
		}
	}
}

// TestWeightedMedianRounding has irrational weights from a few values,
// as √samples gives them, and ties among the values, as the fit's pinned
// residuals make them: a step's sum of the weight up to the median could
// reach half and a later step's, summed in another order, fall a hair
// short, which indexed rest[-1]. The median must be a value at which the
// weight, summed exactly, reaches half within rounding.
func TestWeightedMedianRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100_000 { // the first panic came at 29 000
		n := 2 * (1 + rng.IntN(40))
		ws := []float64{math.Sqrt(float64(10 + rng.IntN(5000))), math.Sqrt(float64(10 + rng.IntN(5000))), math.Sqrt(float64(10 + rng.IntN(50)))}
		k := 1 + rng.IntN(len(ws))
		p := make([]pair, n)
		for i := range p {
			x := rng.NormFloat64()
			if rng.IntN(3) == 0 {
				x = float64(rng.IntN(3))
			}
			p[i] = pair{x, ws[rng.IntN(k)]}
		}
		in := slices.Clone(p)
		got := weightedMedian(p)
		var below, upTo, total big.Float
		for _, e := range in {
			w := new(big.Float).SetFloat64(e.w)
			total.Add(&total, w)
			if e.x < got {
				below.Add(&below, w)
			}
			if e.x <= got {
				upTo.Add(&upTo, w)
			}
		}
		tot, _ := total.Float64()
		lo, _ := below.Float64()
		hi, _ := upTo.Float64()
		if slack := 1e-12 * tot; !(lo < tot/2+slack && hi >= tot/2-slack) {
			t.Fatalf("weightedMedian(%v) = %v: weight below %v, up to it %v, half %v", in, got, lo, hi, tot/2)
		}
	}
}
