package outlier

import (
	"math"
	"slices"
	"strings"
	"time"
)

// DefaultMinResources is the fewest resources a detection runs on, Hadoop's
// default for dfs.datanode.min.outlier.detection.nodes.
const DefaultMinResources = 10

// DefaultLowThreshold is the latency at or below which no resource is an
// outlier, Hadoop's default for dfs.datanode.slowpeer.low.threshold.ms.
const DefaultLowThreshold = 5 * time.Millisecond

// The constants of Hadoop's OutlierDetector.
const (
	// madMultiplier scales the median absolute deviation to estimate the
	// standard deviation of normally distributed data (Leys et al.).
	madMultiplier = 1.4826
	// deviationMultiplier is how many scaled MADs above the median a
	// latency must lie to be an outlier.
	deviationMultiplier = 3
	// medianMultiplier is how many medians a latency must exceed to be an
	// outlier.
	medianMultiplier = 3
)

// Sample is one resource (a peer) and its latency.
type Sample struct {
	// Name identifies the resource, for a peer its "host:port".
	Name string
	// LatencyMs is the resource's aggregate latency in milliseconds.
	LatencyMs float64
}

// Result is the outcome of one detection, all statistics in milliseconds.
//
// When Skipped is true, MedianMs, MADMs and UpperLimitMs are 0 and Outliers
// is empty.
type Result struct {
	// Skipped is true when there were fewer samples than the detector's
	// MinResources (or none at all), so that no detection ran.
	Skipped bool
	// MedianMs is the median latency over all samples.
	MedianMs float64
	// MADMs is the median absolute deviation from MedianMs, times 1.4826.
	MADMs float64
	// UpperLimitMs is the latency a sample must exceed to be an outlier.
	UpperLimitMs float64
	// Outliers are the samples whose latency exceeds UpperLimitMs, nil
	// when there are none. It aliases a buffer of the Detector that
	// returned it and is valid until that Detector's next call.
	Outliers []Sample
}

// Detector finds the resources whose latency is much higher than that of
// the others, exactly as Hadoop's OutlierDetector.getOutlierMetrics does
// (see the package comment), with median and MAD found by selection in
// expected linear time.
//
// The zero value is ready to use: it requires no minimum number of
// resources and has no low threshold. New(DefaultMinResources,
// DefaultLowThreshold) gives Hadoop's DataNode settings.
//
// A Detector is not safe for concurrent use: it keeps scratch buffers
// between calls, so that detections after the first allocate nothing.
type Detector struct {
	// MinResources is the fewest samples a detection runs on
	// (dfs.datanode.min.outlier.detection.nodes, default
	// DefaultMinResources). With fewer, Detect skips the detection.
	MinResources int
	// LowThreshold is the latency at or below which no sample is an
	// outlier (dfs.datanode.slowpeer.low.threshold.ms, default
	// DefaultLowThreshold). Hadoop holds it in whole milliseconds; a
	// sub-millisecond part is kept here, not truncated.
	LowThreshold time.Duration

	keys       []uint64 // scratch: latency keys, then deviation keys
	outliers   []Sample // scratch: Result.Outliers
	mapSamples []Sample // scratch: DetectMap's samples
}

// New returns a Detector with the given settings. A minResources of 1 or
// less runs the detection on every non-empty input.
func New(minResources int, lowThreshold time.Duration) *Detector {
	return &Detector{MinResources: minResources, LowThreshold: lowThreshold}
}

// Detect runs the outlier test on samples and returns the statistics and
// the outliers, in the order of samples. Result.Outliers aliases a buffer
// of d and is valid until the next call of Detect or DetectMap.
//
// Latencies must be finite and ≥ 0; callers validate them. A -0 counts as
// +0. NaN is the caller's error: Detect neither panics nor loops on it, but
// its answer is meaningless.
//
// Reference: OutlierDetector.getOutlierMetrics.
func (d *Detector) Detect(samples []Sample) Result {
	n := len(samples)
	if n == 0 || n < d.MinResources {
		return Result{Skipped: true}
	}
	if cap(d.keys) < n {
		d.keys = make([]uint64, n)
	}
	median, dev := statistics(d.keys[:n], samples)
	mad := dev * madMultiplier
	r := Result{MedianMs: median, MADMs: mad, UpperLimitMs: upperLimit(median, mad, d.LowThreshold)}
	out := d.outliers[:0]
	for _, s := range samples {
		if s.LatencyMs > r.UpperLimitMs {
			out = append(out, s)
		}
	}
	d.outliers = out
	if len(out) > 0 {
		r.Outliers = out[:len(out):len(out)] // an append by the caller copies
	}
	return r
}

// DetectMap is Detect on a map of resource name to latency in
// milliseconds, with the outliers sorted by name. Result.Outliers aliases a
// buffer of d and is valid until the next call of Detect or DetectMap.
func (d *Detector) DetectMap(latencies map[string]float64) Result {
	samples := d.mapSamples[:0]
	for name, ms := range latencies {
		samples = append(samples, Sample{Name: name, LatencyMs: ms})
	}
	r := d.Detect(samples)
	clear(samples) // keep no names alive
	d.mapSamples = samples[:0]
	slices.SortFunc(r.Outliers, func(a, b Sample) int { return strings.Compare(a.Name, b.Name) })
	return r
}

// upperLimit is the latency above which a resource is an outlier, given
// the median and the scaled MAD in milliseconds:
// max(lowThreshold, 3 × median, median + 3 × mad).
//
// Reference: OutlierDetector.getOutlierMetrics.
func upperLimit(medianMs, madMs float64, lowThreshold time.Duration) float64 {
	// Whole milliseconds convert exactly, as Java's long does, however
	// large; float64(lowThreshold) alone would round above 2⁵³ ns.
	lowMs := float64(lowThreshold / time.Millisecond)
	if frac := lowThreshold % time.Millisecond; frac != 0 {
		lowMs += float64(frac) / float64(time.Millisecond)
	}
	// The explicit float64 keeps the compiler from fusing the multiply
	// and the add, which Java does not do either. math.Max, as in the
	// reference's transcription of Java's Math.max: the builtin max can
	// answer a NaN with other bits (a -Inf median, of negative inputs,
	// makes one).
	return math.Max(math.Max(lowMs, medianMs*medianMultiplier), medianMs+float64(deviationMultiplier*madMs))
}
