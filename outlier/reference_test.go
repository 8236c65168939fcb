package outlier

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// referenceDetect is Hadoop's OutlierDetector.getOutlierMetrics transcribed
// step by step, the plain way: copy the latencies, sort them, take the
// median, compute the deviations, sort them, take their median. It is the
// yardstick of the property test and of the benchmarks.
//
// Two departures, both the Detector's documented behaviour: -0 is read as
// +0, and an empty input is skipped (Java's computeMedian would throw when
// minNumResources ≤ 0).
func referenceDetect(samples []Sample, minResources int, lowThresholdMs int64) Result {
	if len(samples) == 0 || len(samples) < minResources {
		return Result{Skipped: true}
	}
	sorted := make([]float64, len(samples))
	for i, s := range samples {
		sorted[i] = s.LatencyMs
		if sorted[i] == 0 {
			sorted[i] = 0
		}
	}
	slices.Sort(sorted)
	median := referenceMedian(sorted)
	mad := referenceMAD(sorted)
	upper := math.Max(float64(lowThresholdMs), median*3)
	upper = math.Max(upper, median+float64(3*mad))
	r := Result{MedianMs: median, MADMs: mad, UpperLimitMs: upper}
	for _, s := range samples {
		if s.LatencyMs > upper {
			r.Outliers = append(r.Outliers, s)
		}
	}
	return r
}

// referenceMedian is OutlierDetector.computeMedian.
func referenceMedian(sorted []float64) float64 {
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median += sorted[len(sorted)/2-1]
		median /= 2
	}
	return median
}

// referenceMAD is OutlierDetector.computeMad.
func referenceMAD(sorted []float64) float64 {
	median := referenceMedian(sorted)
	deviations := slices.Clone(sorted)
	for i, v := range sorted {
		deviations[i] = math.Abs(v - median)
	}
	slices.Sort(deviations)
	return referenceMedian(deviations) * 1.4826
}

// TestDetectMatchesReference is the property test: on thousands of random
// inputs, the selection-based Detector gives bit for bit the answer of the
// sort-based reference.
// Reference: OutlierDetector.getOutlierMetrics.
func TestDetectMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(20130313, 11194)) // fixed: failures reproduce
	d := New(0, 0)                                // one Detector throughout: scratch reuse is under test too
	cases := 4000
	if testing.Short() {
		cases = 500
	}
	for c := range cases {
		n := randomSize(rng)
		gen := generators[rng.IntN(len(generators))]
		samples := make([]Sample, n)
		for i := range samples {
			samples[i] = Sample{Name: fmt.Sprintf("p%d", i), LatencyMs: gen.value(rng, i, n)}
		}
		minRes := rng.IntN(25) - 2
		if rng.IntN(4) == 0 {
			minRes = n + rng.IntN(3) - 1 // around the edge: n-1, n, n+1
		}
		lowMs := int64(rng.IntN(21))
		if rng.IntN(10) == 0 {
			lowMs = rng.Int64N(math.MaxInt64 / int64(time.Millisecond)) // up to the largest Duration
		}
		d.MinResources, d.LowThreshold = minRes, time.Duration(lowMs)*time.Millisecond
		got := d.Detect(samples)
		want := referenceDetect(samples, minRes, lowMs)
		if err := sameResult(got, want); err != nil {
			t.Fatalf("case %d (%s, n=%d, min=%d, low=%dms): %v\ninput: %v", c, gen.name, n, minRes, lowMs, err, head(samples))
		}
	}
}

// FuzzDetect compares the Detector with the reference on inputs the
// fuzzer builds: every 8 bytes are one latency (as float64 bits, NaN and
// ±Inf skipped since callers reject them), the count repeated up to a few
// thousand so that the selection partitions and may fall back to a sort.
func FuzzDetect(f *testing.F) {
	f.Add([]byte{}, uint16(1), uint8(5), uint16(0))
	f.Add(make([]byte, 80), uint16(10), uint8(5), uint16(0))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40"), uint16(1), uint8(0), uint16(1500))
	f.Fuzz(func(t *testing.T, data []byte, minResources uint16, lowMs uint8, repeat uint16) {
		var values []float64
		for len(data) >= 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				values = append(values, v)
			}
		}
		if len(values) == 0 {
			return
		}
		samples := make([]Sample, int(repeat)%5000+len(values))
		for i := range samples {
			samples[i] = Sample{Name: strconv.Itoa(i), LatencyMs: values[i%len(values)]}
		}
		d := New(int(minResources), time.Duration(lowMs)*time.Millisecond)
		if err := sameResult(d.Detect(samples), referenceDetect(samples, int(minResources), int64(lowMs))); err != nil {
			t.Fatalf("n=%d: %v", len(samples), err)
		}
	})
}

// randomSize draws n from 0 to a few thousand, small sizes most often,
// since that is where the parity and the insertion sort vary most.
func randomSize(rng *rand.Rand) int {
	switch rng.IntN(4) {
	case 0:
		return rng.IntN(2*insertionMax + 3)
	case 1:
		return rng.IntN(200)
	case 2:
		return rng.IntN(1000)
	}
	return rng.IntN(4000)
}

// generators make latencies with the shapes that trouble selection and
// floating point: ties, zeros, duplicates, ordered runs, extreme magnitudes.
var generators = []struct {
	name  string
	value func(rng *rand.Rand, i, n int) float64
}{
	{"latency", func(rng *rand.Rand, i, n int) float64 {
		if rng.IntN(50) == 0 {
			return 20 + rng.Float64()*500 // a slow peer
		}
		return 1 + rng.Float64()*2
	}},
	{"lognormal", func(rng *rand.Rand, i, n int) float64 { return math.Exp(rng.NormFloat64()) }},
	{"uniform", func(rng *rand.Rand, i, n int) float64 { return rng.Float64() * 100 }},
	{"few values", func(rng *rand.Rand, i, n int) float64 { return float64(rng.IntN(3)) }},
	{"mostly zero", func(rng *rand.Rand, i, n int) float64 {
		if rng.IntN(10) == 0 {
			return rng.Float64() * 10
		}
		return 0
	}},
	{"signed zeros", func(rng *rand.Rand, i, n int) float64 {
		switch rng.IntN(3) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return 0
		}
		return float64(rng.IntN(4))
	}},
	{"all equal", func(rng *rand.Rand, i, n int) float64 { return 2.5 }},
	{"integers", func(rng *rand.Rand, i, n int) float64 { return float64(rng.IntN(20)) }},
	{"huge", func(rng *rand.Rand, i, n int) float64 {
		return math.Ldexp(1+rng.Float64(), 990+rng.IntN(34)) // 1e298 … max: sums overflow to +Inf
	}},
	{"tiny", func(rng *rand.Rand, i, n int) float64 {
		return math.Ldexp(rng.Float64(), -1000-rng.IntN(75)) // 1e-300 … subnormals
	}},
	{"mixed magnitudes", func(rng *rand.Rand, i, n int) float64 {
		return math.Ldexp(rng.Float64(), rng.IntN(2000)-1000)
	}},
	{"ascending", func(rng *rand.Rand, i, n int) float64 { return float64(i) }},
	{"descending", func(rng *rand.Rand, i, n int) float64 { return float64(n - i) }},
	{"organ pipe", func(rng *rand.Rand, i, n int) float64 { return float64(min(i, n-i)) }},
	{"sawtooth", func(rng *rand.Rand, i, n int) float64 { return float64(i % 7) }},
	{"near duplicates", func(rng *rand.Rand, i, n int) float64 {
		return math.Nextafter(3, 3+float64(rng.IntN(3)-1))
	}},
	// Outside the contract (latencies are ≥ 0), but keys order negative
	// values correctly, so the answer is still exact.
	{"negative", func(rng *rand.Rand, i, n int) float64 { return rng.NormFloat64() * 10 }},
}

// sameResult reports how got differs from want, comparing every float by
// its bits.
func sameResult(got, want Result) error {
	if got.Skipped != want.Skipped {
		return fmt.Errorf("Skipped = %v, want %v", got.Skipped, want.Skipped)
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"MedianMs", got.MedianMs, want.MedianMs},
		{"MADMs", got.MADMs, want.MADMs},
		{"UpperLimitMs", got.UpperLimitMs, want.UpperLimitMs},
	} {
		if math.Float64bits(f.got) != math.Float64bits(f.want) {
			return fmt.Errorf("%s = %v (%#x), want %v (%#x)", f.name, f.got, math.Float64bits(f.got), f.want, math.Float64bits(f.want))
		}
	}
	if !slices.Equal(got.Outliers, want.Outliers) {
		return fmt.Errorf("Outliers = %v, want %v", got.Outliers, want.Outliers)
	}
	return nil
}

// head is the first latencies of samples, for a failure message.
func head(samples []Sample) []float64 {
	out := make([]float64, 0, 40)
	for _, s := range samples[:min(len(samples), cap(out))] {
		out = append(out, s.LatencyMs)
	}
	return out
}
