package outlier

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectedStatistics pins the selection path of Detect against the
// reference for sizes from just above sortedMax to just below sampledMin,
// with the shapes that trouble it: ties, zeros, -0 and negative values
// (which take the keys instead of the bits), sorted and reversed inputs.
// Reference: OutlierDetector.computeMedian, computeMad.
func TestSelectedStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	f := func(name string, values []float64) {
		t.Helper()
		samples := make([]Sample, len(values))
		for i, v := range values {
			samples[i].LatencyMs = v
		}
		want := referenceDetect(samples, 0, 0)
		median, dev := selectedStatistics(make([]uint64, len(samples)), samples)
		if math.Float64bits(median) != math.Float64bits(want.MedianMs) {
			t.Fatalf("%s, n=%d: median %v, want %v\ninput: %v", name, len(values), median, want.MedianMs, head(samples))
		}
		if mad := dev * madMultiplier; math.Float64bits(mad) != math.Float64bits(want.MADMs) {
			t.Fatalf("%s, n=%d: MAD %v, want %v\ninput: %v", name, len(values), mad, want.MADMs, head(samples))
		}
	}
	for _, n := range []int{sortedMax + 1, sortedMax + 2, 63, 64, 65, 100, 101, 500, 1023, 1024, 3001} {
		for _, gen := range generators {
			for range 20 {
				values := make([]float64, n)
				for i := range values {
					values[i] = gen.value(rng, i, n)
				}
				f(gen.name, values)
				values[rng.IntN(n)] = math.Copysign(0, -1) // one sign bit: the keys
				f(gen.name+" and -0", values)
			}
		}
		f("zeros", make([]float64, n))
		f("negative zeros", slices.Repeat([]float64{math.Copysign(0, -1)}, n))
	}
	values := make([]float64, sampledMin-1)
	for i := range values {
		values[i] = generators[0].value(rng, i, len(values))
	}
	f("latency", values)
}

func TestPartitionLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 2, 9, 50, 333} {
		samples := make([]Sample, n)
		for i := range samples {
			samples[i].LatencyMs = float64(rng.IntN(10))
		}
		samples[rng.IntN(n)].LatencyMs = -1
		p := math.Float64bits(float64(rng.IntN(10)))
		keys := make([]uint64, n)
		lt, or := partitionLoad(keys, samples, p)
		want := make([]uint64, n)
		var wantOr uint64
		wantLt := 0
		for i, s := range samples {
			want[i] = math.Float64bits(s.LatencyMs)
			wantOr |= want[i]
			if want[i] < p {
				wantLt++
			}
		}
		if lt != wantLt || or != wantOr {
			t.Fatalf("n=%d: lt, or = %d, %#x, want %d, %#x", n, lt, or, wantLt, wantOr)
		}
		checkPartition(t, keys, want, lt, p)
	}
}

func TestPartitionDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 2, 9, 50, 333} {
		a := make([]uint64, n)
		want := make([]uint64, n)
		m := 4.5
		wantLt := 0
		p := math.Float64bits(float64(rng.IntN(5)))
		for i := range a {
			v := float64(rng.IntN(10))
			a[i] = math.Float64bits(v)
			want[i] = math.Float64bits(math.Abs(v - m))
			if want[i] < p {
				wantLt++
			}
		}
		lt := partitionDeviations(a, m, p)
		if lt != wantLt {
			t.Fatalf("n=%d: lt = %d, want %d", n, lt, wantLt)
		}
		checkPartition(t, a, want, lt, p)
	}
}

// checkPartition checks that a holds the elements of want, the lt of them
// < p first.
func checkPartition(t *testing.T, a, want []uint64, lt int, p uint64) {
	t.Helper()
	for i, x := range a {
		if (i < lt) != (x < p) {
			t.Fatalf("%v: element %d = %#x on the wrong side of %#x (lt %d)", a, i, x, p, lt)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("%v: not a permutation of %v", a, want)
	}
}
