package outlier

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchSizes are the input sizes of the benchmarks: those at which Hadoop's
// Java getOutlierMetrics was measured (0.26 µs at 10, 4.1 µs at 100,
// 1.66 ms at 10 000 and 27 ms at 100 000), and 1 000 between them.
var benchSizes = []int{10, 100, 1000, 10_000, 100_000}

// BenchmarkDetect and BenchmarkReference run on the same inputs, so that
// one run compares them:
//
//	go test -run '^$' -bench . -benchmem -count 5 ./outlier
func BenchmarkDetect(b *testing.B) {
	for _, n := range benchSizes {
		sets := benchSamples(n, benchSets(n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := New(DefaultMinResources, DefaultLowThreshold)
			for _, s := range sets {
				d.Detect(s) // grow the scratch buffers before the clock starts
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				d.Detect(sets[i%len(sets)])
				i++
			}
		})
	}
}

func BenchmarkReference(b *testing.B) {
	for _, n := range benchSizes {
		sets := benchSamples(n, benchSets(n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				referenceDetect(sets[i%len(sets)], DefaultMinResources, 5)
				i++
			}
		})
	}
}

// benchSets is how many different inputs of size n a benchmark cycles
// through: several for small n, so that the branch predictor cannot learn
// one input by heart, and one for the largest.
func benchSets(n int) int { return max(1, min(64, 100_000/n)) }

// benchSamples returns sets inputs of n peers each, with latencies as a
// DataNode sees them: most peers between 1 and 3 ms, about one in fifty
// slow (20 to 200 ms). The seed is fixed.
func benchSamples(n, sets int) [][]Sample {
	rng := rand.New(rand.NewPCG(uint64(n), 11194))
	out := make([][]Sample, sets)
	for s := range out {
		out[s] = make([]Sample, n)
		for i := range out[s] {
			ms := 1 + 2*rng.Float64()
			if rng.IntN(50) == 0 {
				ms = 20 + 180*rng.Float64()
			}
			out[s][i] = Sample{Name: fmt.Sprintf("10.%d.%d.%d:9866", i>>16, i>>8&255, i&255), LatencyMs: ms}
		}
	}
	return out
}
