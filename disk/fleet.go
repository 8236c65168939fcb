package disk

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
)

// The keys of the fleet view, slowpeer's own, with their defaults.
const (
	// FleetMinDisksKey is the fewest volumes of one kind, over the whole
	// cluster, that the fleet view compares.
	FleetMinDisksKey = "slowpeer.disk.fleet.min.disks"
	// DefaultFleetMinDisks is 10: the median and MAD of fewer say little.
	DefaultFleetMinDisks = 10

	// BusyUtilizationKey is the share of time with I/O in flight from
	// which a volume's device counts as busy: its latencies, swollen by
	// queueing, are then not compared with those of idle volumes, and the
	// time its device spends per operation and per byte decides.
	BusyUtilizationKey = "slowpeer.disk.busy.utilization"
	// DefaultBusyUtilization is 0.3: under it, queueing adds less than
	// half to a latency (M/M/1: 1/(1−ρ) = 1.43), far below the 3 × median
	// the test asks.
	DefaultBusyUtilization = 0.3
)

// DefaultFleetMinSamples is the fewest samples an operation's latency
// needs to be compared across the fleet.
const DefaultFleetMinSamples = 10

// minServiceUtilization is the least busy share from which a device's
// time per operation is estimated: below it, too few operations.
const minServiceUtilization = 0.01

// FleetConfig holds the settings of a Fleet. A FleetConfig is a plain
// value, safe to copy.
type FleetConfig struct {
	// MinDisks is the fewest like volumes a comparison runs on
	// (slowpeer.disk.fleet.min.disks, DefaultFleetMinDisks).
	MinDisks int
	// LowThreshold is the latency at or below which no volume is slow,
	// and the time per operation at or below which no device is
	// (dfs.datanode.slowdisk.low.threshold.ms, DefaultLowThreshold).
	LowThreshold time.Duration
	// MinSamples is the fewest samples an operation's latency needs to
	// take part (DefaultFleetMinSamples).
	MinSamples int64
	// BusyUtilization is the utilization from which a device counts as
	// busy (slowpeer.disk.busy.utilization, DefaultBusyUtilization).
	BusyUtilization float64
}

// DefaultFleetConfig returns the defaults.
func DefaultFleetConfig() FleetConfig {
	return FleetConfig{MinDisks: DefaultFleetMinDisks, LowThreshold: DefaultLowThreshold,
		MinSamples: DefaultFleetMinSamples, BusyUtilization: DefaultBusyUtilization}
}

// Validate returns an error naming the first broken rule, or nil.
func (c FleetConfig) Validate() error {
	switch {
	case c.MinDisks < 1:
		return fmt.Errorf("%s must be at least 1, got %d", FleetMinDisksKey, c.MinDisks)
	case c.LowThreshold < 0:
		return fmt.Errorf("%s must not be negative, got %v", LowThresholdKey, c.LowThreshold)
	case c.MinSamples < 1:
		return fmt.Errorf("fleet min samples must be at least 1, got %d", c.MinSamples)
	case !(c.BusyUtilization > 0 && c.BusyUtilization <= 1):
		return fmt.Errorf("%s must be more than 0 and at most 1, got %v", BusyUtilizationKey, c.BusyUtilization)
	}
	return nil
}

// Fleet compares each volume with the like volumes (same device kind) of
// every node, so that a node whose every disk is slow, and a node with
// fewer volumes than Hadoop's test needs, are judged too. It judges a
// latency against the load of the device from the kernel's counters:
//
//   - A volume whose device is not busy (utilization under
//     BusyUtilization, or unknown) is slow in an operation when its
//     latency is an outlier (package outlier: above the low threshold,
//     3 × the median and the median + 3 MAD) among the like volumes
//     that are not busy either.
//   - A device that did some work (at least 1 % busy) is slow when the
//     time it spent per operation (busy time / operations, which
//     queueing does not swell) is an outlier among like devices, and the
//     time it spent per byte too. A device merely busy with large
//     transfers spends more per operation but less per byte; one busy
//     with small ones the other way round; a slow device spends more on
//     both.
//
// A Fleet is not safe for concurrent use (it keeps scratch buffers); the
// zero value is not usable: construct with NewFleet.
type Fleet struct {
	cfg FleetConfig
	det outlier.Detector
	// Scratch, kept between calls: the volumes of one test and their
	// figures.
	take         []volumeRef
	first, other []outlier.Sample
	kinds        map[string][]volumeRef // the volumes of each kind
}

// NewFleet returns a Fleet of cfg, or the error of cfg.Validate.
func NewFleet(cfg FleetConfig) (*Fleet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("disk fleet config: %w", err)
	}
	return &Fleet{cfg: cfg}, nil
}

// volumeRef is one volume of the fleet.
type volumeRef struct {
	node string
	d    *reports.DiskLatency
}

// Judge returns the findings over nodes, sorted by node, disk, evidence
// and operation. nodes are expected to have passed the heartbeat's
// validation.
func (f *Fleet) Judge(nodes []NodeDisks) []Finding {
	if f.kinds == nil {
		f.kinds = map[string][]volumeRef{}
	}
	kinds := f.kinds // emptied at the end of the last call
	for _, n := range nodes {
		for i := range n.Disks {
			d := &n.Disks[i]
			kinds[d.Kind] = append(kinds[d.Kind], volumeRef{n.Node, d})
		}
	}
	var out []Finding
	for kind, vols := range kinds {
		if len(vols) < f.cfg.MinDisks {
			continue
		}
		for _, op := range reports.DiskOps() {
			out = f.latency(out, kind, op, vols)
		}
		out = f.service(out, kind, vols)
	}
	clear(f.take[:cap(f.take)]) // keep no node's volumes alive
	for k, vs := range kinds {
		if len(vs) == 0 {
			delete(kinds, k) // a kind no longer seen
			continue
		}
		clear(vs)
		kinds[k] = vs[:0]
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Node, b.Node), strings.Compare(a.Disk, b.Disk),
			strings.Compare(string(a.Evidence), string(b.Evidence)), strings.Compare(a.Op, b.Op))
	})
	return out
}

// busy reports whether d's device counts as busy.
func (f *Fleet) busy(d *reports.DiskLatency) bool {
	return d.Load != nil && d.Load.Utilization >= f.cfg.BusyUtilization
}

// latency appends the Latency findings of op among vols.
func (f *Fleet) latency(out []Finding, kind, op string, vols []volumeRef) []Finding {
	take, samples := f.take[:0], f.first[:0]
	for _, v := range vols {
		if v.d.Samples[op] < f.cfg.MinSamples || f.busy(v.d) {
			continue
		}
		take = append(take, v)
		samples = append(samples, outlier.Sample{LatencyMs: v.d.Latencies[op]})
	}
	f.take, f.first = take, samples
	r := f.test(samples, f.cfg.LowThreshold)
	if r.Skipped {
		return out
	}
	for i, s := range samples {
		if s.LatencyMs > r.UpperLimitMs {
			out = append(out, Finding{Node: take[i].node, Disk: take[i].d.Disk, Kind: kind, Evidence: Latency, Op: op,
				ValueMs: s.LatencyMs, MedianMs: r.MedianMs, UpperLimitMs: r.UpperLimitMs})
		}
	}
	return out
}

// service appends the Service findings among vols.
func (f *Fleet) service(out []Finding, kind string, vols []volumeRef) []Finding {
	take, perOp, perMB := f.take[:0], f.first[:0], f.other[:0]
	for _, v := range vols {
		if !loaded(v.d.Load) {
			continue
		}
		take = append(take, v)
		perOp = append(perOp, outlier.Sample{LatencyMs: timePerOpMs(v.d.Load)})
		perMB = append(perMB, outlier.Sample{LatencyMs: timePerMBMs(v.d.Load)})
	}
	f.take, f.first, f.other = take, perOp, perMB
	byOp := f.test(perOp, f.cfg.LowThreshold)
	if byOp.Skipped {
		return out
	}
	byMB := f.test(perMB, 0)
	for i := range take {
		if perOp[i].LatencyMs > byOp.UpperLimitMs && perMB[i].LatencyMs > byMB.UpperLimitMs {
			out = append(out, Finding{Node: take[i].node, Disk: take[i].d.Disk, Kind: kind, Evidence: Service,
				ValueMs: perOp[i].LatencyMs, MedianMs: byOp.MedianMs, UpperLimitMs: byOp.UpperLimitMs})
		}
	}
	return out
}

// test runs the outlier test on samples with the fleet's minimum and low
// threshold; its result holds no outliers (only the statistics).
func (f *Fleet) test(samples []outlier.Sample, low time.Duration) outlier.Result {
	f.det.MinResources, f.det.LowThreshold = f.cfg.MinDisks, low
	r := f.det.Detect(samples)
	r.Outliers = nil
	return r
}
