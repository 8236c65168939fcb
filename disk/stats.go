package disk

import (
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/rolling"
)

// OpStats is a volume's latency of one operation over a Recorder's valid
// windows.
type OpStats struct {
	// MeanMs is the mean latency in milliseconds, 0 without samples.
	MeanMs float64
	// Samples is the number of operations behind MeanMs.
	Samples int64
}

// Stats is what a Recorder holds of one volume at one time.
type Stats struct {
	Volume
	// Ops is the volume's latency of each operation, indexed by Op.
	Ops [NumOps]OpStats
	// Load is the work the device under the volume did over the valid
	// windows, or nil when none was recorded.
	Load *reports.DiskLoad
}

// SnapshotAt returns every volume's statistics at now, in the order of
// Volumes, and forgets the windows no longer valid.
func (r *Recorder) SnapshotAt(now time.Time) []Stats {
	out := make([]Stats, len(r.volumes))
	for i, v := range r.volumes {
		out[i].Volume = v
	}
	for op, avg := range r.ops {
		for _, a := range avg.Snapshot(now, 0) {
			out[r.index[a.Key]].Ops[op] = OpStats{MeanMs: a.Mean, Samples: a.Count}
		}
	}
	ios := byKey(r.ios.Snapshot(now, 0))
	bytes := byKey(r.bytes.Snapshot(now, 0))
	busy := byKey(r.busy.Snapshot(now, 0))
	for i := range out {
		n, ok := ios[out[i].Path]
		if !ok {
			continue
		}
		// Rates per microsecond of span, to per second; the busy share
		// was clamped to the span when recorded.
		out[i].Load = &reports.DiskLoad{
			IOPS:           n * 1e6,
			BytesPerSecond: bytes[out[i].Path] * 1e6,
			Utilization:    min(1, busy[out[i].Path]),
		}
	}
	return out
}

func byKey(as []rolling.Average) map[string]float64 {
	m := make(map[string]float64, len(as))
	for _, a := range as {
		m[a.Key] = a.Mean
	}
	return m
}

// Latencies returns the diskLatencies entries of stats: every volume, with
// the operations that have samples.
func Latencies(stats []Stats) []reports.DiskLatency {
	out := make([]reports.DiskLatency, 0, len(stats))
	for _, s := range stats {
		d := reports.DiskLatency{
			Disk:      s.Path,
			Kind:      s.Kind,
			Latencies: make(map[string]float64, NumOps),
			Samples:   make(map[string]int64, NumOps),
			Load:      s.Load,
		}
		for _, op := range Ops() {
			if o := s.Ops[op]; o.Samples > 0 {
				d.Latencies[op.String()] = o.MeanMs
				d.Samples[op.String()] = o.Samples
			}
		}
		out = append(out, d)
	}
	return out
}
