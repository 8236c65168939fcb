package outlier

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSortNetwork checks every network on all 2ⁿ inputs of zeros and
// ones, which by the 0-1 principle proves that it sorts every input, and
// checks that a sign bit anywhere makes it refuse.
func TestSortNetwork(t *testing.T) {
	for n := 1; n <= networkMax; n++ {
		samples := make([]Sample, n)
		dst := make([]float64, n)
		for bits := range 1 << n {
			ones := 0
			for i := range samples {
				samples[i].LatencyMs = float64(bits >> i & 1)
				ones += bits >> i & 1
			}
			if !sortNetwork[n](dst, samples) {
				t.Fatalf("n=%d, input %b: refused", n, bits)
			}
			for i, v := range dst {
				if want := float64(min(1, max(0, i-(n-ones)+1))); v != want {
					t.Fatalf("n=%d, input %b: got %v, want %d zeros, then ones", n, bits, dst, n-ones)
				}
			}
		}
		for i := range samples {
			for _, neg := range []float64{math.Copysign(0, -1), -1} {
				for j := range samples {
					samples[j].LatencyMs = 1
				}
				samples[i].LatencyMs = neg
				if sortNetwork[n](dst, samples) {
					t.Fatalf("n=%d: %v at %d not refused", n, neg, i)
				}
			}
		}
	}
}

// TestMergeNetworks checks the merge of two networks against a sort, and
// the fallback when a latency is negative or -0.
func TestMergeNetworks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := func(values []float64) {
		t.Helper()
		samples := make([]Sample, len(values))
		for i, v := range values {
			samples[i].LatencyMs = v
		}
		dst := make([]float64, len(values))
		scratch := make([]float64, sortedMax+4)
		var ok bool
		if len(values) <= networkMax {
			ok = sortNetwork[len(values)](dst, samples)
		} else {
			ok = mergeNetworks(dst, scratch, samples)
		}
		negative := slices.ContainsFunc(values, math.Signbit)
		if ok == negative {
			t.Fatalf("%v: reported %v", values, ok)
		}
		if want := slices.Sorted(slices.Values(values)); ok && !slices.Equal(dst, want) {
			t.Fatalf("%v: got %v, want %v", values, dst, want)
		}
	}
	for n := 1; n <= sortedMax; n++ {
		for range 300 {
			values := make([]float64, n)
			few := rng.IntN(2) == 0 // many ties
			for i := range values {
				values[i] = rng.Float64() * 100
				if few {
					values[i] = float64(rng.IntN(3))
				}
			}
			f(values)
			values[rng.IntN(n)] = math.Copysign(0, -1)
			f(values)
		}
		f(slices.Repeat([]float64{math.MaxFloat64}, n))
		f(slices.Repeat([]float64{0}, n))
	}
}

// TestMadOfSorted compares madOfSorted with the plain way, deviations
// sorted and their median taken, for sizes well beyond sortedMax too: it
// does not depend on how the values were sorted.
// Reference: OutlierDetector.computeMad.
func TestMadOfSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := func(values []float64) {
		t.Helper()
		sorted := slices.Sorted(slices.Values(values))
		m := medianOfSorted(sorted)
		if m != referenceMedian(sorted) {
			t.Fatalf("%v: median %v, want %v", values, m, referenceMedian(sorted))
		}
		want := referenceMedian(deviations(sorted, m))
		if got := madOfSorted(sorted, m); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%v: got %v, want %v", values, got, want)
		}
	}
	f([]float64{1})
	f([]float64{1, 2})
	f([]float64{0, 0, 0, 5})
	f([]float64{1, 2, 3, 100})
	f([]float64{0, 0, 1, 1})
	f([]float64{5, 5, 5, 5, 5})
	f([]float64{math.MaxFloat64, math.MaxFloat64}) // the median overflows to +Inf
	f([]float64{1, math.MaxFloat64, math.MaxFloat64, math.MaxFloat64})
	f([]float64{-math.MaxFloat64, math.MaxFloat64, math.MaxFloat64})
	for range 5000 {
		n := 1 + rng.IntN(sortedMax)
		if rng.IntN(4) == 0 {
			n = 1 + rng.IntN(300)
		}
		gen := generators[rng.IntN(len(generators))]
		values := make([]float64, n)
		for i := range values {
			values[i] = gen.value(rng, i, n) + 0 // as Detect sees them: -0 as +0
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

// TestDetectSmall pins the sorted path of Detect, one or two sorting
// networks or the insertion sort that a sign bit falls back to, against
// the reference for every n it takes: ties, even and odd n, all values
// equal, zeros and -0.
// Reference: OutlierDetector.getOutlierMetrics.
func TestDetectSmall(t *testing.T) {
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
	negZero := math.Copysign(0, -1)
	for n := 1; n <= sortedMax+1; n++ {
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
		n := 1 + rng.IntN(sortedMax)
		gen := generators[rng.IntN(len(generators))]
		values := make([]float64, n)
		for i := range values {
			values[i] = gen.value(rng, i, n)
		}
		f(gen.name, values)
	}
}
