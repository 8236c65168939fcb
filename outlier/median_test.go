package outlier

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestKeyOrder(t *testing.T) {
	// In numeric order; -0 and +0 are equal numbers but distinct keys.
	values := []float64{
		math.Inf(-1), -math.MaxFloat64, -1e300, -2, -1, -math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1e-300, 1, 1.0000000000000002,
		2, 1e300, math.MaxFloat64, math.Inf(1),
	}
	for i, v := range values {
		if got := value(key(v)); math.Float64bits(got) != math.Float64bits(v) {
			t.Errorf("value(key(%v)) = %v", v, got)
		}
		if i > 0 && key(values[i-1]) >= key(v) {
			t.Errorf("key(%v) = %#x, not above key(%v) = %#x", v, key(v), values[i-1], key(values[i-1]))
		}
	}
	// NaN, the caller's error, still gets a place in the order.
	if k := key(math.NaN()); k <= key(math.Inf(1)) {
		t.Errorf("key(NaN) = %#x, not above key(+Inf)", k)
	}
}

func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	patterns := []struct {
		name string
		gen  func(i, n int) uint64
	}{
		{"random", func(i, n int) uint64 { return rng.Uint64() }},
		{"few values", func(i, n int) uint64 { return uint64(rng.IntN(3)) }},
		{"all equal", func(i, n int) uint64 { return 7 }},
		{"ascending", func(i, n int) uint64 { return uint64(i) }},
		{"descending", func(i, n int) uint64 { return uint64(n - i) }},
		{"organ pipe", func(i, n int) uint64 { return uint64(min(i, n-i)) }},
		{"sawtooth", func(i, n int) uint64 { return uint64(i % 5) }},
		{"one big", func(i, n int) uint64 { return uint64(i / max(n-1, 1)) }},
	}
	f := func(name string, gen func(i, n int) uint64, n, k, budget int) {
		t.Helper()
		a := make([]uint64, n)
		for i := range a {
			a[i] = gen(i, n)
		}
		want := slices.Sorted(slices.Values(a))
		selectKth(a, k, budget)
		if a[k] != want[k] {
			t.Fatalf("%s n=%d k=%d budget=%d: a[k] = %d, want %d", name, n, k, budget, a[k], want[k])
		}
		for i, x := range a {
			if (i < k && x > a[k]) || (i > k && x < a[k]) {
				t.Fatalf("%s n=%d k=%d budget=%d: a[%d] = %d on the wrong side of a[k] = %d", name, n, k, budget, i, x, a[k])
			}
		}
		if !slices.Equal(slices.Sorted(slices.Values(a)), want) {
			t.Fatalf("%s n=%d k=%d budget=%d: elements lost or duplicated", name, n, k, budget)
		}
	}
	for _, p := range patterns {
		for _, n := range []int{1, 2, insertionMax, insertionMax + 1, 100, 1000, 5000} {
			for _, k := range []int{0, n / 2, n - 1, rng.IntN(n)} {
				// budget 0 and 1 force the sort fallback at once or
				// after one round; 2 log₂ n is Detect's.
				for _, budget := range []int{0, 1, 2 * 13} {
					f(p.name, p.gen, n, k, budget)
				}
			}
		}
	}
}

// TestDetectEverySmallSize pins Detect against the reference for every n up
// to a few times insertionMax, where the parity of n and the insertion sort
// matter most: ties, even and odd n, all values equal, zeros and -0.
// Reference: OutlierDetector.getOutlierMetrics.
func TestDetectEverySmallSize(t *testing.T) {
	d := New(1, 0)
	f := func(name string, values []float64) {
		t.Helper()
		samples := make([]Sample, len(values))
		for i, v := range values {
			samples[i] = Sample{Name: fmt.Sprint(i), LatencyMs: v}
		}
		for _, lowMs := range []int64{0, 5} {
			d.LowThreshold = time.Duration(lowMs) * time.Millisecond
			if err := sameResult(d.Detect(samples), referenceDetect(samples, 1, lowMs)); err != nil {
				t.Fatalf("%s, n=%d, low=%dms: %v\ninput: %v", name, len(values), lowMs, err, values)
			}
		}
	}
	const maxN = 4 * insertionMax
	negZero := math.Copysign(0, -1)
	for n := 1; n <= maxN; n++ {
		ramp := make([]float64, n)
		for i := range ramp {
			ramp[i] = float64(n - i) // descending, a gap of 1: many tied deviations
		}
		f("ramp", ramp)
		f("all equal", slices.Repeat([]float64{2.5}, n))
		f("zeros", make([]float64, n))
		f("negative zeros", slices.Repeat([]float64{negZero}, n))
		twoValues := make([]float64, n)
		for i := range twoValues {
			twoValues[i] = float64(i % 2 * 3) // 0, 3, 0, 3, …: the median between or at them
		}
		f("two values", twoValues)
		spike := slices.Repeat([]float64{1}, n)
		spike[n/2] = 100
		f("one slow", spike)
		mixed := slices.Clone(twoValues)
		mixed[0] = negZero
		f("zeros and -0", mixed)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		n := 1 + rng.IntN(maxN)
		gen := generators[rng.IntN(len(generators))]
		values := make([]float64, n)
		for i := range values {
			values[i] = gen.value(rng, i, n)
		}
		f(gen.name, values)
	}
}
