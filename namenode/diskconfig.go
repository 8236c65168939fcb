package namenode

import (
	"fmt"

	"github.com/slowpeer/slowpeer/disk"
)

// The service's keys of slow disks, with their defaults.
const (
	// MaxDisksToReportKey is the number of slow disks /slowdisks and the
	// JMX SlowDisksReport give when not asked for another number.
	MaxDisksToReportKey = "dfs.datanode.max.disks.to.report"
	// DefaultMaxDisksToReport is Hadoop's
	// DFS_DATANODE_MAX_DISKS_TO_REPORT_DEFAULT (SlowDiskTracker's
	// MAX_DISKS_TO_REPORT before it became a key).
	DefaultMaxDisksToReport = 5

	// MaxDiskEntriesKey bounds the volumes the service holds, slow-disk
	// report entries and measured volumes together. A heartbeat that
	// would pass it is refused with 429.
	MaxDiskEntriesKey = "slowpeer.namenode.max.disk.entries"
	// DefaultMaxDiskEntries is 20 volumes for each of DefaultMaxDataNodes
	// DataNodes (storage servers hold 12 to 24 drives, 60 to 100 for the
	// densest).
	DefaultMaxDiskEntries = 1000000

	// SlowDiskHostShareKey is the share of a node's volumes that must be
	// in the slow set of disks for the HiveServer picker to count its host
	// as slow.
	SlowDiskHostShareKey = "slowpeer.slow.disk.host.share"
	// DefaultSlowDiskHostShare is 1: a slow disk alone slows the blocks
	// on it, not the queries run on the host, so Hive work moves only
	// when every disk of a node is slow (a controller, a throttled host).
	DefaultSlowDiskHostShare = 1.0
)

// DiskConfig is the service's configuration of slow disks. A DiskConfig
// is a plain value, safe to copy.
type DiskConfig struct {
	// SamplingPercentage mirrors
	// dfs.datanode.fileio.profiling.sampling.percentage (default 100):
	// at 0, disks are off (Enabled).
	SamplingPercentage int
	// MaxDisksToReport mirrors dfs.datanode.max.disks.to.report (default
	// 5): the N of /slowdisks without ?top= and of SlowDisksReport.
	MaxDisksToReport int
	// MaxEntries mirrors slowpeer.namenode.max.disk.entries (default
	// 1000000).
	MaxEntries int
	// Fleet is the fleet view's configuration (slowpeer.disk.fleet.min.disks,
	// dfs.datanode.slowdisk.low.threshold.ms, slowpeer.disk.busy.utilization).
	Fleet disk.FleetConfig
	// HostShare mirrors slowpeer.slow.disk.host.share (default 1): the
	// share of a node's volumes in the slow set of disks from which the
	// picker counts its host slow, more than 0 and at most 1.
	HostShare float64
}

// Enabled reports whether the service takes what heartbeats say of
// disks. Off, it ignores it, /slowdisks answers [] and SlowDisksReport is
// null, as a Hadoop NameNode has no SlowDiskTracker then
// (Util.isDiskStatsEnabled: a sampling percentage above 0).
func (c DiskConfig) Enabled() bool { return c.SamplingPercentage > 0 }

// DefaultDiskConfig returns the defaults.
func DefaultDiskConfig() DiskConfig {
	return DiskConfig{
		SamplingPercentage: disk.DefaultSamplingPercentage,
		MaxDisksToReport:   DefaultMaxDisksToReport,
		MaxEntries:         DefaultMaxDiskEntries,
		Fleet:              disk.DefaultFleetConfig(),
		HostShare:          DefaultSlowDiskHostShare,
	}
}

// Validate returns an error naming the first broken rule, or nil.
func (c DiskConfig) Validate() error {
	switch {
	case c.MaxDisksToReport < 1 || c.MaxDisksToReport > MaxTop:
		return fmt.Errorf("%s must be between 1 and %d, got %d", MaxDisksToReportKey, MaxTop, c.MaxDisksToReport)
	case c.MaxEntries < 1 || c.MaxEntries > maxLimit:
		return fmt.Errorf("%s must be between 1 and %d, got %d", MaxDiskEntriesKey, maxLimit, c.MaxEntries)
	case c.SamplingPercentage < 0 || c.SamplingPercentage > 100:
		return fmt.Errorf("%s must be between 0 and 100, got %d", disk.SamplingPercentageKey, c.SamplingPercentage)
	case !(c.HostShare > 0 && c.HostShare <= 1):
		return fmt.Errorf("%s must be more than 0 and at most 1, got %v", SlowDiskHostShareKey, c.HostShare)
	}
	return c.Fleet.Validate()
}
