package datanode

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
	"github.com/slowpeer/slowpeer/reports"
)

// Disks measures a DataNode host's volumes from up to three sources, each
// into a disk.Recorder of its own: the kernel's counters of the device
// under each volume, small active probes on each volume, and the
// volume beans of a Hadoop DataNode beside the agent (-hadoop-jmx). A
// report merges them (mergeStats) and runs Hadoop's test.
//
// Disks is safe for concurrent use; Run may be called once.
type Disks struct {
	volumes []disk.Volume
	devs    []diskstat.Device // per volume, the zero Device for none
	kernel  *diskKernel
	probes  []*diskProber
	hadoop  *diskHadoop // nil without -hadoop-jmx

	recs []*disk.Recorder // kernel, probes, then Hadoop's when there is one

	// warmUp is how long Run must have measured before a report: until
	// then a volume has a probe or two of each operation, and one that
	// waited behind a neighbour's burst would be its whole mean.
	warmUp  time.Duration
	started atomic.Pointer[time.Time] // when Run began

	mu       sync.Mutex
	detector *disk.Detector // guarded by mu
}

// newDisks returns the measurement of cfg.Volumes, or nil when there are
// none. Each volume's device and kind are looked up now; a volume without
// a block device of its own is logged and left to the probes.
func newDisks(cfg Config, client *http.Client, c *counters, log *slog.Logger) (*Disks, error) {
	if len(cfg.Volumes) == 0 {
		return nil, nil
	}
	det := disk.NewDetector(cfg.MinOutlierDetectionDisks, cfg.SlowDiskLowThreshold)
	det.BusyUtilization, det.MinSamples = cfg.DiskBusyUtilization, cfg.DiskMinSamples
	d := &Disks{volumes: append([]disk.Volume(nil), cfg.Volumes...), detector: det,
		warmUp: min(cfg.RollingSpan(), cfg.ReportInterval)}
	d.devs = make([]diskstat.Device, len(d.volumes))
	for i, v := range d.volumes {
		dev, err := diskstat.Of(v.Path)
		if err != nil {
			log.Warn("no block device found under this volume; it is measured by probes alone",
				slog.String("volume", v.Path), slog.Any("err", err))
			continue
		}
		d.devs[i] = dev
		if d.volumes[i].Kind == "" {
			d.volumes[i].Kind = diskstat.Kind("", dev)
		}
	}
	newRec := func() (*disk.Recorder, error) {
		return disk.NewRecorder(cfg.RollingWindow, cfg.RollingWindows, d.volumes)
	}
	kernelRec, err := newRec()
	if err != nil {
		return nil, err
	}
	probeRec, err := newRec()
	if err != nil {
		return nil, err
	}
	d.recs = []*disk.Recorder{kernelRec, probeRec}
	paths := make([]string, len(d.volumes))
	for i, v := range d.volumes {
		paths[i] = v.Path
	}
	dlog := log.With(slog.String("source", "disks"))
	d.kernel = newDiskKernel(paths, d.devs, kernelRec, cfg.DiskStatsInterval, c, dlog)
	if cfg.DiskProbeInterval > 0 {
		for i, v := range d.volumes {
			d.probes = append(d.probes, &diskProber{volume: v.Path, rec: probeRec, interval: cfg.DiskProbeInterval,
				share: cfg.DiskProbeBudget.Seconds(), dev: d.devs[i], counters: c, log: dlog,
				rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))})
		}
	}
	if cfg.HadoopJMX != "" {
		hadoopRec, err := newRec()
		if err != nil {
			return nil, err
		}
		d.recs = append(d.recs, hadoopRec)
		d.hadoop = newDiskHadoop(cfg.HadoopJMX, client, cfg.HadoopJMXInterval, hadoopRec, c, dlog)
	}
	return d, nil
}

// Volumes returns the volumes measured, with their kinds, in a new slice.
func (d *Disks) Volumes() []disk.Volume { return append([]disk.Volume(nil), d.volumes...) }

// Run measures until ctx is done and returns once every source has
// stopped and the probes' files are removed.
func (d *Disks) Run(ctx context.Context) {
	now := time.Now()
	d.started.Store(&now)
	var wg sync.WaitGroup
	wg.Go(func() { d.kernel.run(ctx) })
	for _, p := range d.probes {
		wg.Go(func() { p.run(ctx) })
	}
	if d.hadoop != nil {
		wg.Go(func() { d.hadoop.run(ctx) })
	}
	wg.Wait()
}

// ReportAt returns, at now, the heartbeat's slowDisks (Hadoop's test over
// the merged latencies; never nil) and diskLatencies (every volume), or
// false when Run has not measured for long enough yet: the smaller of a
// span of the rolling windows and a report interval.
func (d *Disks) ReportAt(now time.Time) ([]reports.SlowDisk, []reports.DiskLatency, bool) {
	if s := d.started.Load(); s == nil || now.Sub(*s) < d.warmUp {
		return nil, nil, false
	}
	stats := d.stats(now)
	d.mu.Lock()
	slow := d.detector.Detect(stats)
	d.mu.Unlock()
	return slow, disk.Latencies(stats), true
}

// stats returns the sources' snapshots at now, merged.
func (d *Disks) stats(now time.Time) []disk.Stats {
	sets := make([][]disk.Stats, len(d.recs))
	for i, r := range d.recs {
		sets[i] = r.SnapshotAt(now)
	}
	return mergeStats(sets, d.detector.MinSamples)
}

// mergeStats merges the snapshots of the sources, which hold the same
// volumes in the same order: for every volume and operation, the figure
// of the source that measured it slowest among those with at least
// minSamples samples (when none has, that with the most), and the first
// load given. Each
// source is a lower bound of how slow a volume is: the kernel's counters
// miss what holds a request before the device accounts it (a throttle of
// the block-I/O controller, a file system's locks), a probe is one small
// operation at a time and skips its turn on a busy device, a Hadoop
// DataNode times only its own operations; none makes a healthy volume
// look slow.
func mergeStats(sets [][]disk.Stats, minSamples int64) []disk.Stats {
	if len(sets) == 0 {
		return nil
	}
	out := make([]disk.Stats, len(sets[0]))
	copy(out, sets[0])
	for _, set := range sets[1:] {
		if len(set) != len(out) {
			panic("BUG: datanode.mergeStats: sources of different volumes")
		}
		for i, s := range set {
			if s.Path != out[i].Path {
				panic("BUG: datanode.mergeStats: sources of different volumes")
			}
			for op, o := range s.Ops {
				if better(o, out[i].Ops[op], minSamples) {
					out[i].Ops[op] = o
				}
			}
			if out[i].Load == nil {
				out[i].Load = s.Load
			}
		}
	}
	return out
}

// better reports whether o is the figure to keep over cur: enough samples
// and slower, or more samples where neither has enough.
func better(o, cur disk.OpStats, minSamples int64) bool {
	enough, curEnough := o.Samples >= max(minSamples, 1), cur.Samples >= max(minSamples, 1)
	switch {
	case enough && curEnough:
		return o.MeanMs > cur.MeanMs
	case enough != curEnough:
		return enough
	}
	return o.Samples > cur.Samples
}
