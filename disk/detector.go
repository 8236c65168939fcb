package disk

import (
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
)

// The Hadoop keys of the test, with Hadoop's defaults.
const (
	// MinDisksKey is the number of volumes (of one StorageType) the test
	// needs to run.
	MinDisksKey = "dfs.datanode.min.outlier.detection.disks"
	// DefaultMinDisks is Hadoop's
	// DFS_DATANODE_MIN_OUTLIER_DETECTION_DISKS_DEFAULT.
	DefaultMinDisks = 5

	// LowThresholdKey is the latency, in milliseconds, at or below which
	// no volume is slow.
	LowThresholdKey = "dfs.datanode.slowdisk.low.threshold.ms"
	// DefaultLowThreshold is Hadoop's
	// DFS_DATANODE_SLOWDISK_LOW_THRESHOLD_MS_DEFAULT.
	DefaultLowThreshold = 20 * time.Millisecond

	// SamplingPercentageKey turns disk statistics on (above 0) or off
	// (0), on the DataNode and on the NameNode, as Hadoop's
	// DFS_DATANODE_FILEIO_PROFILING_SAMPLING_PERCENTAGE_KEY does (Hadoop
	// profiles that share of a DataNode's file I/O; slowpeer reads only
	// whether it is above 0).
	SamplingPercentageKey = "dfs.datanode.fileio.profiling.sampling.percentage"
	// DefaultSamplingPercentage is 100: on. Hadoop's is 0 (off);
	// slowpeer exists to keep these statistics, as it keeps the peers'.
	DefaultSamplingPercentage = 100
)

// DefaultStorageType is the StorageType of a volume that names none,
// Hadoop's StorageType.DEFAULT.
const DefaultStorageType = "DISK"

// Detector runs Hadoop's slow-disk test (DataNodeDiskMetrics'
// detectAndUpdateDiskOutliers) on a node's volumes: for each StorageType
// and each operation separately, the median/MAD outlier test of package
// outlier over the volumes' mean latencies.
//
// A Detector is not safe for concurrent use (it keeps scratch buffers);
// its zero value tests every group of at least one volume, with no low
// threshold. NewDetector gives Hadoop's settings.
type Detector struct {
	// MinDisks is the fewest volumes of one StorageType the test runs on
	// (dfs.datanode.min.outlier.detection.disks, DefaultMinDisks).
	MinDisks int
	// LowThreshold is the latency at or below which no volume is slow
	// (dfs.datanode.slowdisk.low.threshold.ms, DefaultLowThreshold).
	LowThreshold time.Duration
	// MinSamples is the fewest samples an operation of a volume needs to
	// take part. 0, the default, is Hadoop's behaviour: every volume takes
	// part, an operation it did not do at 0 ms.
	MinSamples int64
	// BusyUtilization, when above 0, keeps a volume whose device is busy
	// (Stats.Load.Utilization at least this) from being reported on its
	// latencies alone, which queueing behind healthy work swells: it is
	// reported only when its device's time per operation and per byte
	// (busy time over operations, over bytes) are outliers among the
	// node's loaded volumes of its StorageType too, as the fleet view
	// judges (Fleet). 0, the default, is Hadoop's test; the agent sets
	// DefaultBusyUtilization (slowpeer.disk.busy.utilization).
	BusyUtilization float64

	det     outlier.Detector
	samples []outlier.Sample // scratch
}

// NewDetector returns a Detector with the given settings and MinSamples 0.
func NewDetector(minDisks int, lowThreshold time.Duration) *Detector {
	return &Detector{MinDisks: minDisks, LowThreshold: lowThreshold}
}

// Detect returns the slow volumes among stats, sorted by path, each with
// the mean latency of every operation it was found slow in: the entries
// of a heartbeat's slowDisks. It returns an empty, non-nil slice when no
// volume is slow.
//
// Reference: DataNodeDiskMetrics.detectAndUpdateDiskOutliers.
func (d *Detector) Detect(stats []Stats) []reports.SlowDisk {
	d.det.MinResources, d.det.LowThreshold = d.MinDisks, d.LowThreshold
	types := make([]string, 0, 2)
	for _, s := range stats {
		if t := storageType(s.StorageType); !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	slow := map[string]map[string]float64{}
	for _, t := range types {
		for _, op := range Ops() {
			samples := d.samples[:0]
			for _, s := range stats {
				if storageType(s.StorageType) == t && s.Ops[op].Samples >= d.MinSamples {
					samples = append(samples, outlier.Sample{Name: s.Path, LatencyMs: s.Ops[op].MeanMs})
				}
			}
			d.samples = samples
			for _, o := range d.det.Detect(samples).Outliers {
				if slow[o.Name] == nil {
					slow[o.Name] = make(map[string]float64, NumOps)
				}
				slow[o.Name][op.String()] = o.LatencyMs
			}
		}
	}
	if d.BusyUtilization > 0 {
		d.dropBusy(stats, slow)
	}
	clear(d.samples[:cap(d.samples)]) // keep no names alive
	out := make([]reports.SlowDisk, 0, len(slow))
	for path, lat := range slow {
		out = append(out, reports.SlowDisk{Disk: path, Latencies: lat})
	}
	slices.SortFunc(out, func(a, b reports.SlowDisk) int { return strings.Compare(a.Disk, b.Disk) })
	return out
}

// dropBusy deletes from slow the volumes whose device is busy, unless
// their time per operation and per byte are both outliers among the
// loaded volumes of their StorageType.
func (d *Detector) dropBusy(stats []Stats, slow map[string]map[string]float64) {
	for _, s := range stats {
		if slow[s.Path] == nil || s.Load == nil || s.Load.Utilization < d.BusyUtilization {
			continue
		}
		t := storageType(s.StorageType)
		var perOp, perMB []outlier.Sample
		mine := -1
		for _, o := range stats {
			if storageType(o.StorageType) != t || !loaded(o.Load) {
				continue
			}
			if o.Path == s.Path {
				mine = len(perOp)
			}
			perOp = append(perOp, outlier.Sample{LatencyMs: timePerOpMs(o.Load)})
			perMB = append(perMB, outlier.Sample{LatencyMs: timePerMBMs(o.Load)})
		}
		d.det.LowThreshold = d.LowThreshold
		byOp := d.det.Detect(perOp)
		slowOp := mine >= 0 && !byOp.Skipped && perOp[mine].LatencyMs > byOp.UpperLimitMs
		d.det.LowThreshold = 0
		byMB := d.det.Detect(perMB)
		slowMB := mine >= 0 && !byMB.Skipped && perMB[mine].LatencyMs > byMB.UpperLimitMs
		if !slowOp || !slowMB {
			delete(slow, s.Path)
		}
	}
	d.det.LowThreshold = d.LowThreshold
}

// loaded reports whether l shows enough work to estimate the device's
// time per operation and per byte.
func loaded(l *reports.DiskLoad) bool {
	return l != nil && l.IOPS > 0 && l.BytesPerSecond > 0 && l.Utilization >= minServiceUtilization
}

// timePerOpMs is the time a device of load l spent per operation (its
// busy time over the operations it completed), in milliseconds.
func timePerOpMs(l *reports.DiskLoad) float64 { return 1000 * l.Utilization / l.IOPS }

// timePerMBMs is the time it spent per megabyte (10⁶ bytes).
func timePerMBMs(l *reports.DiskLoad) float64 { return 1000 * l.Utilization / (l.BytesPerSecond / 1e6) }

// storageType is t as Hadoop reads it: upper case, DISK when empty.
func storageType(t string) string {
	if t == "" {
		return DefaultStorageType
	}
	return strings.ToUpper(t)
}

// ReportAt returns, at now, the slowDisks and diskLatencies of a
// heartbeat: the volumes d finds slow among r's, and every volume's
// latencies, samples, kind and load.
func (r *Recorder) ReportAt(now time.Time, d *Detector) (slow []reports.SlowDisk, measured []reports.DiskLatency) {
	stats := r.SnapshotAt(now)
	return d.Detect(stats), Latencies(stats)
}
