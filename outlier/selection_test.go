package outlier

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
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
		for _, n := range []int{1, 2, sortedMax, sortedMax + 1, 100, 1000, 5000} {
			for _, k := range []int{0, n / 2, n - 1, rng.IntN(n)} {
				// budget 0 and 1 force the sort fallback at once or
				// after one round, the full budget is Detect's.
				for _, budget := range []int{0, 1, selectBudget(n)} {
					f(p.name, p.gen, n, k, budget)
				}
			}
		}
	}
}

func TestMedianDeviationSorted(t *testing.T) {
	// Against the plain way: deviations, sort, median.
	rng := rand.New(rand.NewPCG(3, 4))
	f := func(values []float64) {
		t.Helper()
		sorted := slices.Sorted(slices.Values(values))
		keys := make([]uint64, len(sorted))
		for i, v := range sorted {
			keys[i] = key(v)
		}
		m := medianSorted(keys)
		want := referenceMedian(deviations(sorted, m))
		got := medianDeviationSorted(keys, m)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%v: got %v, want %v", values, got, want)
		}
	}
	f([]float64{1})
	f([]float64{1, 2})
	f([]float64{0, 0, 0, 5})
	f([]float64{1, 2, 3, 100})
	f([]float64{math.MaxFloat64, math.MaxFloat64}) // the median overflows to +Inf
	f([]float64{1, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64})
	for range 2000 {
		values := make([]float64, 1+rng.IntN(sortedMax))
		for i := range values {
			switch rng.IntN(3) {
			case 0:
				values[i] = float64(rng.IntN(4))
			case 1:
				values[i] = rng.Float64()
			default:
				values[i] = math.Ldexp(rng.Float64(), rng.IntN(2000)-1000)
			}
		}
		f(values)
	}
}

// deviations is |v - m| for every v of sorted, sorted.
func deviations(sorted []float64, m float64) []float64 {
	d := make([]float64, len(sorted))
	for i, v := range sorted {
		d[i] = math.Abs(v - m)
	}
	slices.Sort(d)
	return d
}

func TestSampledMedianFallsBack(t *testing.T) {
	// The property test compares whole detections; this checks that both
	// of Detect's ways through a large input are taken by it.
	rng := rand.New(rand.NewPCG(5, 6))
	f := func(name string, gen func(i, n int) float64, wantHit bool) {
		t.Helper()
		for _, n := range []int{sampledMin, 3000, 50_000} {
			samples := make([]Sample, n)
			for i := range samples {
				samples[i].LatencyMs = gen(i, n)
			}
			d := New(0, 0)
			d.keys = make([]uint64, n)
			_, hit := d.sampledMedian(samples)
			if hit != wantHit {
				t.Errorf("%s, n=%d: bracket hit %v, want %v", name, n, hit, wantHit)
			}
			want := referenceDetect(samples, 0, 0)
			if err := sameResult(d.Detect(samples), want); err != nil {
				t.Errorf("%s, n=%d: %v", name, n, err)
			}
		}
	}
	f("latencies", func(i, n int) float64 { return 1 + 2*rng.Float64() }, true)
	f("sample trap", func(i, n int) float64 { return sampleTrap(rng, i, n) }, false)
}
