package diagnosis

import (
	"fmt"
	"math"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Defaults of Config. DefaultConfig assembles them.
const (
	// DefaultMaxAge is how long a cell counts, 15 minutes: 3 × the
	// agents' default dfs.datanode.outliers.report.interval
	// (reports.DefaultOutliersReportInterval, 5m), the validity the
	// service gives a slow-peer report (namenode.Config.ReportValidity,
	// after Hadoop's SlowPeerTracker), which the service and the
	// simulator set MaxAge to.
	DefaultMaxAge = 3 * reports.DefaultOutliersReportInterval
	// DefaultMinSamples is the fewest packets behind a cell that let it
	// take part: an average of fewer is mostly noise.
	DefaultMinSamples = 10
	// DefaultMinPairs is the fewest measured pairs a node needs in a
	// direction (as a receiver: senders that measured it; as a sender:
	// peers it measured) before its effect in that direction is judged.
	DefaultMinPairs = 5
	// DefaultSlowFactor is k: a node or a pair is slow when it is more
	// than k times the cluster median, Hadoop's 3 × median limit
	// (OutlierDetector).
	DefaultSlowFactor = 3.0
	// DefaultFloorMs is the latency below which nothing is slow however
	// far from the others, dfs.datanode.slowpeer.low.threshold.ms (5).
	DefaultFloorMs = 5.0
	// DefaultLinkDeviations is how many robust standard deviations of the
	// fit's residuals a single pair must exceed to be a bad link. The
	// robust deviation leaves out the residuals the fit pins at zero, so
	// it is the residuals' real spread within 3 %, at 12 nodes as at
	// 10 000 (counted in, they made it 21 % too small at 12, 8 % at
	// 10 000 × 50): a healthy matrix of 500 000 cells with normal
	// residuals shows a false link about once in 2 000 diagnoses.
	// (At 5, bench_test.go's healthy cluster of 10 000 nodes showed two.)
	DefaultLinkDeviations = 6.0
	// DefaultRackFraction is the share of a rack's judged nodes that must
	// be slow for the rack, rather than its nodes, to be the finding.
	DefaultRackFraction = 0.8
	// DefaultRackMinNodes is the fewest judged nodes a rack needs for a
	// rack finding: one slow node is a slow node, whatever its rack.
	DefaultRackMinNodes = 2
	// DefaultMaxReporters is the most reporters the matrix keeps: room for
	// a 10 000-DataNode cluster with headroom for renamed or replaced
	// nodes that have not expired yet.
	DefaultMaxReporters = 16384
	// DefaultMaxPeers is the most peers the matrix keeps per reporter.
	// A DataNode mirrors to a few hundred peers within a report interval
	// even in a large cluster (pipelines are rack-aware); beyond this the
	// oldest cell of the reporter is replaced. With DefaultMaxReporters a
	// full matrix holds 4 194 304 cells of 24 bytes: about 100 MB.
	DefaultMaxPeers = 256
)

// Config holds the knobs of a Matrix. The zero value is not valid; start
// from DefaultConfig.
type Config struct {
	// MaxAge is how long a cell stays valid: it counts at now while
	// now − at < MaxAge (default DefaultMaxAge).
	MaxAge time.Duration
	// MinSamples is the fewest samples behind a cell for it to take part
	// (default DefaultMinSamples); fewer are kept but ignored.
	MinSamples int
	// MinPairs is the fewest measured pairs a node needs in a direction
	// for that direction to be judged (default DefaultMinPairs).
	MinPairs int
	// SlowFactor is k of the slow limit max(FloorMs, k × cluster median)
	// and the least ratio of a bad link to what its two ends predict
	// (default DefaultSlowFactor).
	SlowFactor float64
	// FloorMs is the latency, in milliseconds, that a slow node or link
	// must exceed whatever the median (default DefaultFloorMs).
	FloorMs float64
	// LinkDeviations is how many robust standard deviations of the
	// residuals (of all of them, or of a noisy node's) a bad link must
	// exceed (default DefaultLinkDeviations).
	LinkDeviations float64
	// RackFraction is the share of a rack's judged nodes that must be
	// slow for a rack finding (default DefaultRackFraction).
	RackFraction float64
	// RackMinNodes is the fewest judged nodes of a rack for a rack
	// finding (default DefaultRackMinNodes).
	RackMinNodes int
	// MaxReporters bounds the reporters kept; Add refuses a new one
	// beyond it (default DefaultMaxReporters).
	MaxReporters int
	// MaxPeers bounds the cells kept per reporter; a new peer beyond it
	// replaces the reporter's oldest cell (default DefaultMaxPeers).
	MaxPeers int
	// Topology maps hosts to racks; the zero Topology knows no racks and
	// Diagnose then makes no rack findings.
	Topology Topology
}

// DefaultConfig returns a Config with every default and no topology.
func DefaultConfig() Config {
	return Config{
		MaxAge:         DefaultMaxAge,
		MinSamples:     DefaultMinSamples,
		MinPairs:       DefaultMinPairs,
		SlowFactor:     DefaultSlowFactor,
		FloorMs:        DefaultFloorMs,
		LinkDeviations: DefaultLinkDeviations,
		RackFraction:   DefaultRackFraction,
		RackMinNodes:   DefaultRackMinNodes,
		MaxReporters:   DefaultMaxReporters,
		MaxPeers:       DefaultMaxPeers,
	}
}

// maxCells keeps MaxReporters × MaxPeers (and the int32 ids) in range.
const maxCells = 1 << 28

// Validate returns an error naming the first broken rule, or nil.
func (c Config) Validate() error {
	switch {
	case c.MaxAge <= 0:
		return fmt.Errorf("max age must be more than zero, got %v", c.MaxAge)
	case c.MinSamples < 0:
		return fmt.Errorf("min samples must not be negative, got %d", c.MinSamples)
	case c.MinPairs < 1:
		return fmt.Errorf("min pairs must be at least 1, got %d", c.MinPairs)
	case !(c.SlowFactor > 1) || math.IsInf(c.SlowFactor, 0):
		return fmt.Errorf("slow factor must be a finite number above 1, got %v", c.SlowFactor)
	case !(c.FloorMs >= 0) || math.IsInf(c.FloorMs, 0):
		return fmt.Errorf("floor must be a finite number of milliseconds ≥ 0, got %v", c.FloorMs)
	case !(c.LinkDeviations >= 0) || math.IsInf(c.LinkDeviations, 0):
		return fmt.Errorf("link deviations must be a finite number ≥ 0, got %v", c.LinkDeviations)
	case !(c.RackFraction > 0 && c.RackFraction <= 1):
		return fmt.Errorf("rack fraction must be in (0, 1], got %v", c.RackFraction)
	case c.RackMinNodes < 1:
		return fmt.Errorf("rack min nodes must be at least 1, got %d", c.RackMinNodes)
	case c.MaxReporters < 1 || c.MaxPeers < 1:
		return fmt.Errorf("max reporters and max peers must be at least 1, got %d and %d", c.MaxReporters, c.MaxPeers)
	case c.MaxReporters > maxCells/c.MaxPeers:
		return fmt.Errorf("max reporters × max peers must be at most %d, got %d × %d", maxCells, c.MaxReporters, c.MaxPeers)
	}
	return nil
}
