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
		below := selectKth(a, k, budget)
		if a[k] != want[k] {
			t.Fatalf("%s n=%d k=%d budget=%d: a[k] = %d, want %d", name, n, k, budget, a[k], want[k])
		}
		var wantBelow uint64 // 0 when k is 0
		if k > 0 {
			wantBelow = want[k-1]
		}
		if below != wantBelow {
			t.Fatalf("%s n=%d k=%d budget=%d: returned %d, want %d", name, n, k, budget, below, wantBelow)
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

func TestSampledMedianFallsBack(t *testing.T) {
	// The property test compares whole detections; this checks that the
	// sampled way takes both of its branches, bracket hit and miss, and
	// stays exact, also at sizes Detect now selects at instead.
	rng := rand.New(rand.NewPCG(5, 6))
	f := func(name string, gen func(i, n int) float64, wantHit bool) {
		t.Helper()
		for _, n := range []int{1024, 3000, sampledMin, 50_000} {
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
			median, dev := d.sampledStatistics(samples)
			if math.Float64bits(median) != math.Float64bits(want.MedianMs) || math.Float64bits(dev*madMultiplier) != math.Float64bits(want.MADMs) {
				t.Errorf("%s, n=%d: median %v, MAD %v, want %v, %v", name, n, median, dev*madMultiplier, want.MedianMs, want.MADMs)
			}
			if err := sameResult(d.Detect(samples), want); err != nil {
				t.Errorf("%s, n=%d: %v", name, n, err)
			}
		}
	}
	f("latencies", func(i, n int) float64 { return 1 + 2*rng.Float64() }, true)
	f("sample trap", func(i, n int) float64 { return sampleTrap(rng, i, n) }, false)
}
