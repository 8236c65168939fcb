package diskstat

import (
	"os"
	"testing"
)

// BenchmarkReaderRead is one reading of the counters of four devices from
// the machine's own /proc/diskstats, what a monitor does every interval.
// BENCHMARKS.md turns it into a share of a core.
func BenchmarkReaderRead(b *testing.B) {
	all, err := Parse(mustReadB(b, Path))
	if err != nil || len(all) == 0 {
		b.Skipf("no usable %s: %v", Path, err)
	}
	devs := make([]Device, 0, 4)
	for i := 0; len(devs) < 4; i++ {
		devs = append(devs, all[i%len(all)].Device)
	}
	out, found := make([]Counters, len(devs)), make([]bool, len(devs))
	var r Reader
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := r.Read(devs, out, found); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(all)), "devices")
}

func mustReadB(b *testing.B, name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		b.Skip(err)
	}
	return data
}
