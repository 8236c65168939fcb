package outlier

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestDetectHadoopOutlierMatrix runs the outlier cases of Hadoop's
// TestSlowNodeDetector.outlierTestMatrix with its settings (low threshold
// 1000 ms, at least 3 resources) and expects the same outliers.
// Reference: TestSlowNodeDetector.testOutliersFromTestMatrix.
func TestDetectHadoopOutlierMatrix(t *testing.T) {
	const low = 1000.0 // TestSlowNodeDetector.LOW_THRESHOLD
	d := New(3, low*time.Millisecond)
	f := func(latencies map[string]float64, want ...string) {
		t.Helper()
		r := d.DetectMap(latencies)
		var got []string
		for _, o := range r.Outliers {
			got = append(got, o.Name)
			if o.LatencyMs != latencies[o.Name] {
				t.Errorf("%v: outlier %s has latency %v, want %v", latencies, o.Name, o.LatencyMs, latencies[o.Name])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: outliers %v, want %v", latencies, got, want)
		}
	}
	// Too few samples, one above the low threshold: nothing.
	f(map[string]float64{"n1": 0, "n2": low + 1})
	// A statistical outlier below the low threshold is not returned.
	f(map[string]float64{"n1": 1, "n2": 1, "n3": low - 1})
	// A statistical outlier above the low threshold is returned.
	f(map[string]float64{"n1": 1, "n2": 1, "n3": low + 1}, "n3")
	// Not an outlier within 3 × the median.
	f(map[string]float64{"n1": low + 0.1, "n2": low + 0.1, "n3": low*3 - 0.1})
	// An outlier beyond 3 × the median.
	f(map[string]float64{"n1": low + 0.1, "n2": low + 0.1, "n3": (low+0.1)*3 + 0.1}, "n3")
	// Only the statistical outliers n3 and n11.
	f(map[string]float64{
		"n1": 1029.4322, "n2": 2647.876, "n3": 9194.312, "n4": 2.2, "n5": 2012.92, "n6": 1843.81,
		"n7": 1201.43, "n8": 6712.01, "n9": 3278.554, "n10": 2091.765, "n11": 9194.77,
	}, "n11", "n3")
	// Low outliers n4 and n6 are not returned, nor n2 within 3 × the
	// median; only n8.
	f(map[string]float64{
		"n1": 5002, "n2": 9001, "n3": 5004, "n4": 1001, "n5": 5003, "n6": 2001,
		"n7": 5000, "n8": 101002, "n9": 5001, "n10": 5002, "n11": 5105, "n12": 5006,
	}, "n8")
}

// TestDetectHadoopMedianMatrix checks the median and the MAD (× 1.4826) of
// Hadoop's TestSlowNodeDetector.medianTestMatrix, within its 0.001 %.
// Reference: TestSlowNodeDetector.testMediansFromTestMatrix, testMadsFromTestMatrix.
func TestDetectHadoopMedianMatrix(t *testing.T) {
	d := New(1, 0)
	f := func(values []float64, wantMedian, wantMAD float64) {
		t.Helper()
		samples := make([]Sample, len(values))
		for i, v := range values {
			samples[i] = Sample{LatencyMs: v}
		}
		r := d.Detect(samples)
		if e := math.Abs(r.MedianMs-wantMedian) * 100 / wantMedian; !(e < 0.001) {
			t.Errorf("%v: median %v, want %v", values, r.MedianMs, wantMedian)
		}
		if len(values) == 1 {
			wantMAD = 0 // Hadoop checks mad < 1e-6 here.
		}
		if e := math.Abs(r.MADMs-wantMAD) * 100 / wantMAD; !(e < 0.001) && r.MADMs != wantMAD {
			t.Errorf("%v: MAD %v, want %v", values, r.MADMs, wantMAD)
		}
	}
	f([]float64{9.6502431302}, 9.6502431302, 0.0)
	f([]float64{1.72168104625, 11.7872544459}, 6.75446774606, 7.4616095611)
	f([]float64{76.2635686249, 27.0652018553, 1.3868476443, 49.7194624164, 47.385680883, 57.8721199173},
		48.5525716497, 22.837202532)
	f([]float64{86.0573389581, 93.2399572424, 64.9545429122, 35.8509730085, 1.6534313654},
		64.9545429122, 41.9360180373)
	f([]float64{5.00127007366, 37.9790589127, 67.5784746266}, 37.9790589127, 43.8841594039)
	f([]float64{1.43442932944, 70.6769829947, 37.47579656, 51.1126141394, 72.2465914419, 32.2930549225,
		39.677459781}, 39.677459781, 16.9537852208)
	f([]float64{26.7913745214, 68.9833706658, 29.3882180746, 68.3455244453, 74.9277265022, 12.1469972942,
		72.5395402683, 7.87917492506, 33.3253447774, 72.2753759125}, 50.8354346113, 31.9881230079)
	f([]float64{38.6482290705, 88.0690746319, 50.6673611649, 64.5329814115, 25.2580979294, 59.6709630711,
		71.5406993741, 81.3073035091, 20.5549547284}, 59.6709630711, 31.1683520683)
	f([]float64{87.352734249, 65.4760359094, 28.9206803169, 36.5908574008, 87.7407653175, 99.3704511335,
		41.3227434076, 46.2713494909, 3.49940920921}, 46.2713494909, 28.4729106898)
	f([]float64{95.3251533286, 27.2777870437, 43.73477168}, 43.73477168, 24.3991619317)
}

// TestDetect pins the rules of DESIGN.md one by one: the strict >, the
// even-n median, the skip below MinResources and each of the three limits
// being the one that binds.
// Reference: OutlierDetector.getOutlierMetrics.
func TestDetect(t *testing.T) {
	f := func(name string, d *Detector, values []float64, want Result) {
		t.Helper()
		samples := make([]Sample, len(values))
		for i, v := range values {
			samples[i] = Sample{Name: string(rune('a' + i)), LatencyMs: v}
		}
		got := d.Detect(samples)
		if got.Skipped != want.Skipped ||
			math.Float64bits(got.MedianMs) != math.Float64bits(want.MedianMs) ||
			math.Float64bits(got.MADMs) != math.Float64bits(want.MADMs) ||
			math.Float64bits(got.UpperLimitMs) != math.Float64bits(want.UpperLimitMs) ||
			!slices.Equal(got.Outliers, want.Outliers) {
			t.Errorf("%s: %v:\ngot  %+v\nwant %+v", name, values, got, want)
		}
	}
	hadoop := New(DefaultMinResources, DefaultLowThreshold)
	ones := func(n int, last float64) []float64 {
		v := slices.Repeat([]float64{1}, n)
		v[n-1] = last
		return v
	}

	// Low threshold binds: median 1, MAD 0, limit max(5, 3, 1) = 5.
	f("at the low threshold", hadoop, ones(10, 5), Result{MedianMs: 1, UpperLimitMs: 5})
	f("just above the low threshold", hadoop, ones(10, math.Nextafter(5, 6)),
		Result{MedianMs: 1, UpperLimitMs: 5, Outliers: []Sample{{"j", math.Nextafter(5, 6)}}})
	f("sub-millisecond threshold", New(10, 4500*time.Microsecond), ones(10, 4.6),
		Result{MedianMs: 1, UpperLimitMs: 4.5, Outliers: []Sample{{"j", 4.6}}})

	// 3 × median binds: median 2, MAD 0, limit max(5, 6, 2) = 6.
	twos := []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 6}
	f("at 3 × median", hadoop, twos, Result{MedianMs: 2, UpperLimitMs: 6})
	twos[9] = math.Nextafter(6, 7)
	f("just above 3 × median", hadoop, twos,
		Result{MedianMs: 2, UpperLimitMs: 6, Outliers: []Sample{{"j", twos[9]}}})

	// median + 3 × MAD binds. Sorted 1 … 8, x, 100 (x > 8): the median
	// is (5 + 6) / 2 = 5.5 (even n), the deviations sorted are .5 .5 1.5
	// 1.5 2.5 2.5 3.5 4.5 … so their median is 2.5, the MAD 2.5 × 1.4826
	// = 3.7065 and the limit 5.5 + 11.1195 = 16.6195 > 3 × 5.5 = 16.5.
	spread := func(x float64) []float64 { return []float64{8, 1, 100, 2, 3, x, 4, 5, 6, 7} }
	dev := 2.5
	mad := dev * 1.4826           // rounded as Java rounds it, not as a Go constant
	limit := 5.5 + float64(3*mad) // unfused, as Java computes it
	if math.Abs(limit-16.6195) > 1e-12 {
		t.Fatalf("limit %v, want 16.6195", limit)
	}
	f("below median + 3 × MAD", hadoop, spread(16.61),
		Result{MedianMs: 5.5, MADMs: mad, UpperLimitMs: limit, Outliers: []Sample{{"c", 100}}})
	f("above median + 3 × MAD", hadoop, spread(16.62),
		Result{MedianMs: 5.5, MADMs: mad, UpperLimitMs: limit, Outliers: []Sample{{"c", 100}, {"f", 16.62}}})

	// Even n: the mean of the two middle values, odd n: the middle one.
	f("even n", New(1, 0), []float64{4, 1, 3, 2}, Result{MedianMs: 2.5, MADMs: 1 * 1.4826, UpperLimitMs: 7.5})
	f("odd n", New(1, 0), []float64{4, 1, 3, 2, 5}, Result{MedianMs: 3, MADMs: 1 * 1.4826, UpperLimitMs: 9})

	// Fewer than MinResources: skipped, with zero statistics.
	f("one below MinResources", hadoop, ones(9, 100), Result{Skipped: true})
	f("at MinResources", hadoop, ones(10, 100),
		Result{MedianMs: 1, UpperLimitMs: 5, Outliers: []Sample{{"j", 100}}})
	f("empty", New(0, 0), nil, Result{Skipped: true})
	f("zero value", &Detector{}, []float64{1}, Result{MedianMs: 1, UpperLimitMs: 3})

	// -0 counts as +0: the median is +0, not Java's -0.0.
	negZero := math.Copysign(0, -1)
	f("negative zeros", New(1, 0), []float64{negZero, negZero, negZero}, Result{})
}

func TestDetectMapSortsOutliers(t *testing.T) {
	d := New(DefaultMinResources, DefaultLowThreshold)
	latencies := map[string]float64{"z:1": 90, "a:1": 80, "m:1": 70}
	for i := range 20 {
		latencies[string(rune('b'+i))+":2"] = 1 + float64(i)/20
	}
	r := d.DetectMap(latencies)
	want := []Sample{{"a:1", 80}, {"m:1", 70}, {"z:1", 90}}
	if !slices.Equal(r.Outliers, want) {
		t.Errorf("outliers %v, want %v", r.Outliers, want)
	}
}

func TestDetectOutliersAlias(t *testing.T) {
	d := New(1, 0)
	r := d.Detect([]Sample{{"a", 1}, {"b", 1}, {"c", 10}})
	// The caller's append must not write into the detector's buffer.
	_ = append(r.Outliers, Sample{"x", 0})
	if got := d.Detect([]Sample{{"a", 1}, {"b", 1}, {"c", 10}}); !slices.Equal(got.Outliers, []Sample{{"c", 10}}) {
		t.Errorf("outliers %v, want [{c 10}]", got.Outliers)
	}
}

func TestDetectNaNDoesNotHang(t *testing.T) {
	// NaN is the caller's error; the answer is meaningless but comes.
	d := New(1, 0)
	for _, n := range []int{3, 10, insertionMax + 1, 100, 1000, 70_000} {
		samples := make([]Sample, n)
		for i := range samples {
			samples[i] = Sample{LatencyMs: float64(i % 3)}
			if i%2 == 0 {
				samples[i].LatencyMs = math.NaN()
			}
		}
		d.Detect(samples)
	}
}

func TestDetectDoesNotAllocate(t *testing.T) {
	// Insertion sort alone and after partitioning, with and without a -0.
	for _, n := range []int{10, insertionMax + 1, 100, 1000, 5000} {
		for _, negative := range []bool{false, true} {
			samples := benchSamples(n, 1)[0]
			if negative {
				samples[n/2].LatencyMs = math.Copysign(0, -1)
			}
			d := New(DefaultMinResources, DefaultLowThreshold)
			d.Detect(samples) // warm up the scratch buffers
			if allocs := testing.AllocsPerRun(100, func() { d.Detect(samples) }); allocs != 0 {
				t.Errorf("n=%d, -0 %v: %v allocations per Detect, want 0", n, negative, allocs)
			}
		}
	}
}
