package datanode

import (
	"time"

	"github.com/slowpeer/slowpeer/disk"
)

// The keys of the agent's disk measurement, with their defaults (docs/configuration.md,
// "Keys"); DataDirKey names the volumes.
const (
	// MinOutlierDetectionDisksKey is the number of volumes of one
	// StorageType Hadoop's slow-disk test needs to run.
	MinOutlierDetectionDisksKey = disk.MinDisksKey
	// DefaultMinOutlierDetectionDisks is Hadoop's default, 5.
	DefaultMinOutlierDetectionDisks = disk.DefaultMinDisks

	// SlowDiskLowThresholdKey is the latency, in milliseconds, at or below
	// which no volume is slow.
	SlowDiskLowThresholdKey = disk.LowThresholdKey
	// DefaultSlowDiskLowThreshold is Hadoop's default, 20 ms.
	DefaultSlowDiskLowThreshold = disk.DefaultLowThreshold

	// DiskMinSamplesKey is the number of samples an operation of a volume
	// needs to take part in Hadoop's test.
	DiskMinSamplesKey = "slowpeer.disk.min.samples"
	// DefaultDiskMinSamples is 3: a lone probe does not decide, and a disk
	// turned slow is slow in its next three.
	DefaultDiskMinSamples = 3

	// DiskBusyUtilizationKey is the device utilization from which a volume
	// is busy.
	DiskBusyUtilizationKey = disk.BusyUtilizationKey
	// DefaultDiskBusyUtilization is the service's default, 0.3.
	DefaultDiskBusyUtilization = disk.DefaultBusyUtilization

	// DiskStatsIntervalKey is how often the kernel's counters are read.
	DiskStatsIntervalKey = "slowpeer.disk.stats.interval"
	// DefaultDiskStatsInterval is a second: a read of /proc/diskstats
	// costs tens of microseconds (BENCHMARKS.md), and a probe skips its
	// turn on a device that was busy over the last interval.
	DefaultDiskStatsInterval = time.Second

	// DiskProbeIntervalKey is the least time between two probe operations
	// on one volume; 0 turns the probes off.
	DiskProbeIntervalKey = "slowpeer.disk.probe.interval"
	// DefaultDiskProbeInterval is a second: at most one operation a second
	// per volume.
	DefaultDiskProbeInterval = time.Second

	// DiskProbeBudgetKey is the time the probes of one volume may take per
	// second.
	DiskProbeBudgetKey = "slowpeer.disk.probe.budget"
	// DefaultDiskProbeBudget is a millisecond a second, 0.1 % of a disk's
	// time: a probe of 0.1 ms (an SSD) may go every second, one of 8 ms
	// (a disk's seek) every 16 seconds.
	DefaultDiskProbeBudget = time.Millisecond
)
