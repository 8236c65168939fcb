package main

import (
	"math"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// The keys each daemon reads from hdfs-site.xml, core-site.xml and -D, one
// table per Config. The libraries own the key names, the defaults
// (DefaultConfig) and the rules of Validate; these tables say how each
// value is written and which field it sets. The key table of
// docs/configuration.md lists exactly these keys with these defaults
// (configuration_test.go).

// datanodeKeys are the keys of "slowpeer datanode".
var datanodeKeys = keys[datanode.Config]{
	{name: datanode.HeartbeatIntervalKey, unit: seconds,
		field: func(c *datanode.Config) any { return &c.HeartbeatInterval }},
	{name: datanode.ReportIntervalKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.ReportInterval }},
	{name: datanode.MinOutlierDetectionSamplesKey, unit: count, min: 0, max: math.MaxInt32,
		field: func(c *datanode.Config) any { return &c.MinOutlierDetectionSamples }},
	{name: datanode.MinOutlierDetectionNodesKey, unit: count, min: 1, max: math.MaxInt32,
		field: func(c *datanode.Config) any { return &c.MinOutlierDetectionNodes }},
	{name: datanode.LowThresholdKey, unit: decimalMillis, min: 0, max: int64(24 * time.Hour),
		field: func(c *datanode.Config) any { return &c.LowThreshold }},
	{name: datanode.RollingWindowKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.RollingWindow }},
	{name: datanode.RollingWindowsKey, unit: count, min: 1, max: 1 << 16,
		field: func(c *datanode.Config) any { return &c.RollingWindows }},
	{name: datanode.MaxPeerLatenciesKey, unit: count, min: 1, max: reports.MaxPeerLatencies,
		field: func(c *datanode.Config) any { return &c.MaxPeerLatencies }},
	{name: datanode.ProbeIntervalKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.ProbeInterval }},
	{name: datanode.ProbePacketsKey, unit: count, min: 1, max: datanode.MaxProbePackets,
		field: func(c *datanode.Config) any { return &c.ProbePackets }},
	{name: datanode.ProbePacketBytesKey, unit: byteSize, min: 1, max: datanode.MaxProbePacketBytes,
		field: func(c *datanode.Config) any { return &c.ProbePacketBytes }},
	{name: datanode.ProbeMaxBytesPerSecondKey, unit: byteSize, min: 1, max: math.MaxInt64,
		field: func(c *datanode.Config) any { return &c.ProbeMaxBytesPerSecond }},
	{name: datanode.ProbeMinRateKey, unit: rate, min: 1, max: datanode.MaxProbeMinBitsPerSecond,
		field: func(c *datanode.Config) any { return &c.ProbeMinBitsPerSecond }},
	{name: datanode.ProbeTimeoutKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.ProbeTimeout }},
	{name: datanode.ProbeMaxFailuresKey, unit: count, min: 0, max: math.MaxInt32,
		field: func(c *datanode.Config) any { return &c.ProbeMaxFailures }},
	{name: datanode.ProbeCoverageKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.ProbeCoverage }},
	{name: datanode.ProbeConfirmBudgetKey, unit: count, min: 0, max: datanode.MaxProbeConfirmBudget,
		field: func(c *datanode.Config) any { return &c.ProbeConfirmBudget }},
	{name: datanode.MaxRetryBackoffKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.MaxRetryBackoff }},
	{name: datanode.HadoopJMXIntervalKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.HadoopJMXInterval }},
	{name: datanode.HadoopJMXPeerPortKey, unit: count, min: 0, max: 65535,
		field: func(c *datanode.Config) any { return &c.HadoopJMXPeerPort }},
	{name: datanode.PeerStatsEnabledKey, unit: boolean,
		field: func(c *datanode.Config) any { return &c.PeerStatsEnabled }},
	{name: datanode.HTTPAddressKey, unit: text,
		field: func(c *datanode.Config) any { return &c.HTTPListen }, note: "none"},
	{name: datanode.DataDirKey, unit: volumes,
		field: func(c *datanode.Config) any { return &c.Volumes }, note: "none"},
	{name: datanode.MinOutlierDetectionDisksKey, unit: count, min: 1, max: math.MaxInt32,
		field: func(c *datanode.Config) any { return &c.MinOutlierDetectionDisks }},
	{name: datanode.SlowDiskLowThresholdKey, unit: decimalMillis, min: 0, max: int64(24 * time.Hour),
		field: func(c *datanode.Config) any { return &c.SlowDiskLowThreshold }},
	{name: datanode.DiskMinSamplesKey, unit: count, min: 0, max: math.MaxInt32,
		field: func(c *datanode.Config) any { return &c.DiskMinSamples }},
	{name: datanode.DiskBusyUtilizationKey, unit: fraction,
		field: func(c *datanode.Config) any { return &c.DiskBusyUtilization }},
	{name: datanode.DiskStatsIntervalKey, unit: millis,
		field: func(c *datanode.Config) any { return &c.DiskStatsInterval }},
	{name: datanode.DiskProbeIntervalKey, unit: millis, zero: true,
		field: func(c *datanode.Config) any { return &c.DiskProbeInterval }},
	{name: datanode.DiskProbeBudgetKey, unit: millis, max: int64(time.Second),
		field: func(c *datanode.Config) any { return &c.DiskProbeBudget }},
}

// namenodeKeys are the keys of "slowpeer namenode" for the service itself;
// hiveserverKeys are those of its HiveServer picker.
var namenodeKeys = keys[namenode.Config]{
	{name: namenode.HeartbeatIntervalKey, unit: seconds,
		field: func(c *namenode.Config) any { return &c.HeartbeatInterval }},
	{name: namenode.OutliersReportIntervalKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.OutliersReportInterval }},
	{name: namenode.MaxNodesToReportKey, unit: count, min: 1, max: namenode.MaxTop,
		field: func(c *namenode.Config) any { return &c.MaxNodesToReport }},
	{name: namenode.MaxSlowPeerCollectNodesKey, unit: count, min: 1, max: namenode.MaxTop,
		field: func(c *namenode.Config) any { return &c.MaxSlowPeerCollectNodes }},
	{name: namenode.HeartbeatRecheckIntervalKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.HeartbeatRecheckInterval }},
	{name: namenode.StaleIntervalKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.StaleInterval }},
	{name: namenode.MaxDataNodesKey, unit: count, min: 1, max: 100_000_000,
		field: func(c *namenode.Config) any { return &c.MaxDataNodes }},
	{name: namenode.MaxTrackerEntriesKey, unit: count, min: 1, max: 100_000_000,
		field: func(c *namenode.Config) any { return &c.MaxTrackerEntries }},
	{name: namenode.MaxSlowNodesKey, unit: count, min: 1, max: 100_000_000,
		field: func(c *namenode.Config) any { return &c.MaxSlowNodes }},
	{name: namenode.MaxPeerLatenciesKey, unit: count, min: 1, max: reports.MaxPeerLatencies,
		field: func(c *namenode.Config) any { return &c.MaxPeerLatencies }},
	{name: namenode.MaxDiagnosisReportersKey, unit: count, min: 1, max: 1_000_000,
		field: func(c *namenode.Config) any { return &c.MaxDiagnosisReporters }},
	{name: namenode.MetricsSlowNodesKey, unit: count, min: 0, max: namenode.MaxTop,
		field: func(c *namenode.Config) any { return &c.MetricsSlowNodes }},
	{name: namenode.DataNodeForgetAfterKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.DataNodeForgetAfter }},
	{name: namenode.MaxConnectionsKey, unit: count, min: 1, max: 1 << 20,
		field: func(c *namenode.Config) any { return &c.MaxConnections }},
	{name: namenode.HeaderReadTimeoutKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.HeaderReadTimeout }},
	{name: namenode.BodyReadTimeoutKey, unit: millis,
		field: func(c *namenode.Config) any { return &c.BodyReadTimeout }},
	{name: namenode.SlowNodesFloorKey, unit: decimalMillis, min: 0, max: int64(24 * time.Hour),
		field: func(c *namenode.Config) any { return &c.SlowNodesFloor }},
	{name: namenode.TopologyFileKey, unit: text,
		field: func(c *namenode.Config) any { return &c.TopologyFile }, note: "none"},
	{name: namenode.HostsExcludeKey, unit: text,
		field: func(c *namenode.Config) any { return &c.HostsExcludeFile }, note: "none"},
	{name: namenode.SlowEnterAfterKey, unit: millis, zero: true,
		field: func(c *namenode.Config) any { return &c.SlowSet.EnterAfter }},
	{name: namenode.SlowEnterReportersKey, unit: count, min: 1, max: math.MaxInt32,
		field: func(c *namenode.Config) any { return &c.SlowSet.EnterReporters }},
	{name: namenode.SlowLeaveAfterKey, unit: millis, zero: true,
		field: func(c *namenode.Config) any { return &c.SlowSet.LeaveAfter }},
	{name: namenode.SuspectEnabledKey, unit: boolean,
		field: func(c *namenode.Config) any { return &c.SuspectEnabled }},
	{name: namenode.SuspectRatioKey, unit: decimal, min: 1, max: 1000,
		field: func(c *namenode.Config) any { return &c.Suspect.Ratio }},
	{name: namenode.SuspectMildRatioKey, unit: decimal, min: 0, max: 1000,
		field: func(c *namenode.Config) any { return &c.Suspect.MildRatio }},
	{name: namenode.ConfirmRoundsKey, unit: count, min: 1, max: 10,
		field: func(c *namenode.Config) any { return &c.Suspect.Rounds }},
	{name: disk.SamplingPercentageKey, unit: count, min: 0, max: 100,
		field: func(c *namenode.Config) any { return &c.Disks.SamplingPercentage }},
	{name: namenode.MaxDisksToReportKey, unit: count, min: 1, max: namenode.MaxTop,
		field: func(c *namenode.Config) any { return &c.Disks.MaxDisksToReport }},
	{name: namenode.MaxDiskEntriesKey, unit: count, min: 1, max: 100_000_000,
		field: func(c *namenode.Config) any { return &c.Disks.MaxEntries }},
	{name: disk.LowThresholdKey, unit: decimalMillis, min: 0, max: int64(24 * time.Hour),
		field: func(c *namenode.Config) any { return &c.Disks.Fleet.LowThreshold }},
	{name: disk.FleetMinDisksKey, unit: count, min: 1, max: math.MaxInt32,
		field: func(c *namenode.Config) any { return &c.Disks.Fleet.MinDisks }},
	{name: disk.BusyUtilizationKey, unit: fraction,
		field: func(c *namenode.Config) any { return &c.Disks.Fleet.BusyUtilization }},
	{name: namenode.SlowDiskHostShareKey, unit: fraction,
		field: func(c *namenode.Config) any { return &c.Disks.HostShare }},
}

var hiveserverKeys = keys[hiveserver.Config]{
	{name: hiveserver.QueryTimeoutKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.QueryTimeout }},
	{name: hiveserver.MinRemainingKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.MinRemaining }},
	{name: hiveserver.DefaultCostKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.DefaultCost }},
	{name: hiveserver.ServerExpiryKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.ServerExpiry }},
	{name: hiveserver.RefreshIntervalKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.RefreshInterval },
		note:  formatDuration(hiveserver.DefaultSharedRefreshInterval) + " with -store mysql:, else never"},
	{name: hiveserver.RetentionKey, unit: millis,
		field: func(c *hiveserver.Config) any { return &c.Retention }},
}

// datanodeConf reads the agent's keys from conf into cfg, whose fields
// hold the defaults.
func datanodeConf(conf hadoopConf, cfg *datanode.Config) error { return datanodeKeys.apply(conf, cfg) }

// namenodeConf reads the service's keys from conf into cfg, whose fields
// hold the defaults.
func namenodeConf(conf hadoopConf, cfg *namenode.Config) error { return namenodeKeys.apply(conf, cfg) }

// hiveserverConf reads the picker's keys from conf into cfg, whose fields
// hold the defaults.
func hiveserverConf(conf hadoopConf, cfg *hiveserver.Config) error {
	return hiveserverKeys.apply(conf, cfg)
}
