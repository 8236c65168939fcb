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

// BenchmarkFleetJudge times one fleet view of n nodes of 12 HDD volumes
// each, one of them slow: the service's periodic work (DiagnoseDisks).
func BenchmarkFleetJudge(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := make([]NodeDisks, n)
			for i := range nodes {
				nodes[i].Node = fmt.Sprintf("10.%d.%d.%d:9866", i/65536, i/256%256, i%256)
				for v := range 12 {
					ms := 6 + float64((i+v)%7)/4
					if i == 7 && v == 3 {
						ms = 80
					}
					nodes[i].Disks = append(nodes[i].Disks, volume(fmt.Sprintf("/data/%d", v), "hdd", ms, 10, 640e3, ms/100))
				}
			}
			f, err := NewFleet(DefaultFleetConfig())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if got := f.Judge(nodes); len(got) != 1 {
					b.Fatalf("%d findings", len(got))
				}
			}
		})
	}
}
