package outlier_test

import (
	"fmt"

	"github.com/slowpeer/slowpeer/outlier"
)

// A DataNode with twelve downstream peers. The median is 2.15 ms and the
// peers are tightly clustered, so 3 × median (6.45 ms) is the limit that
// binds: the peer at 6.1 ms is slower than the rest but not flagged.
func ExampleDetector_Detect() {
	d := outlier.New(outlier.DefaultMinResources, outlier.DefaultLowThreshold)
	r := d.Detect([]outlier.Sample{
		{"10.0.0.1:9866", 1.9}, {"10.0.0.2:9866", 2.1}, {"10.0.0.3:9866", 2.4},
		{"10.0.0.4:9866", 1.7}, {"10.0.0.5:9866", 35.2}, {"10.0.0.6:9866", 2.2},
		{"10.0.0.7:9866", 2.0}, {"10.0.0.8:9866", 1.8}, {"10.0.0.9:9866", 2.6},
		{"10.0.0.10:9866", 2.3}, {"10.0.0.11:9866", 6.1}, {"10.0.0.12:9866", 2.0},
	})
	fmt.Printf("median %.2f ms, MAD %.4f ms, upper limit %.4f ms\n", r.MedianMs, r.MADMs, r.UpperLimitMs)
	for _, o := range r.Outliers {
		fmt.Printf("slow: %s at %.1f ms\n", o.Name, o.LatencyMs)
	}
	// Output:
	// median 2.15 ms, MAD 0.3706 ms, upper limit 6.4500 ms
	// slow: 10.0.0.5:9866 at 35.2 ms
}

// Below the minimum number of peers, nothing is flagged, however slow.
func ExampleDetector_DetectMap() {
	d := outlier.New(outlier.DefaultMinResources, outlier.DefaultLowThreshold)
	r := d.DetectMap(map[string]float64{"10.0.0.1:9866": 2, "10.0.0.2:9866": 2, "10.0.0.3:9866": 500})
	fmt.Println(r.Skipped, len(r.Outliers))
	// Output:
	// true 0
}
