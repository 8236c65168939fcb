package disk

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkAddAt times recording one operation of a known volume, the
// path of every active probe and timed I/O.
func BenchmarkAddAt(b *testing.B) {
	r := newRecorder(b, Volume{Path: "/data/1"}, Volume{Path: "/data/2"})
	now := time.Unix(1_700_000_000, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.AddAt(now, "/data/1", Op(i%NumOps), time.Millisecond)
	}
}

// BenchmarkReportAt times one report of a node of 12 volumes: the
// snapshot, Hadoop's test and the diskLatencies entries, once per report
// interval.
func BenchmarkReportAt(b *testing.B) {
	var vols []Volume
	for i := range 12 {
		vols = append(vols, Volume{Path: fmt.Sprintf("/data/%d", i), Kind: "hdd"})
	}
	r := newRecorder(b, vols...)
	d := NewDetector(DefaultMinDisks, DefaultLowThreshold)
	now := time.Unix(1_700_000_000, 0)
	b.ReportAllocs()
	for b.Loop() {
		for i, v := range vols {
			for _, op := range Ops() {
				r.AddManyAt(now, v.Path, op, time.Duration(i+1)*time.Second, 500)
			}
			_ = r.AddLoadAt(now, v.Path, 10*time.Second, 100, 1<<20, time.Second)
		}
		r.ReportAt(now, d)
	}
}
