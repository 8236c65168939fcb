// Package disk is the pure core of slowpeer's slow-disk detection on a
// DataNode host: the disk operations, a recorder of every volume's
// latencies per operation, and Hadoop's test that finds the volumes much
// slower than the node's others (HDFS-10959: DataNodeVolumeMetrics,
// DataNodeDiskMetrics, SlowDiskReports). The agent and the cluster
// simulator both use it; what it gives them is a heartbeat's slowDisks
// and diskLatencies (package reports).
//
// # Recording
//
// A [Recorder] knows a node's volumes and keeps, for each volume and each
// [Op] (METADATA, READ, WRITE, as Hadoop's DiskOp), the sum and count of
// the latencies recorded in each of the last few windows of time, as
// package rolling does for peers: [Recorder.AddAt] records one operation
// (an active probe, a timed I/O), [Recorder.AddManyAt] a batch (the growth
// of the kernel's counters between two reads of /proc/diskstats: the
// operations completed and the time spent on them), and
// [Recorder.AddLoadAt] the work the device under a volume did over a span
// (operations, bytes, busy time), which the service judges latencies
// against. Time is passed in; the Recorder never reads the clock.
//
// # Hadoop's test
//
// Every report interval, Hadoop's DataNodeDiskMetrics takes each volume's
// mean latency of each operation and, separately for each operation and
// for each StorageType (DISK, SSD, ...), runs the same OutlierDetector as
// for peers (package outlier) with
//
//   - at least dfs.datanode.min.outlier.detection.disks volumes
//     (default 5; with fewer, the group is not tested), and
//   - dfs.datanode.slowdisk.low.threshold.ms (default 20 ms), at or below
//     which no volume is slow.
//
// A volume found slow in any operation is a slow disk, reported with the
// latency of each operation it was slow in (SlowDiskReports: base path →
// DiskOp → ms). Hadoop's volumes take part whatever their number of
// samples: a volume that did no operation of a kind in the period counts
// as 0 ms (MutableRate.lastStat().mean() of no samples). [Detector] does
// the same with MinSamples 0, its default; a positive MinSamples leaves
// out the operations of a volume with fewer samples.
//
// Hadoop takes each mean over the metrics system's last snapshot period;
// here it is over the Recorder's valid windows, the same span as the
// peers' rolling averages.
//
// # What Hadoop's test cannot see
//
// The test compares a node's volumes with each other only: a node with
// fewer than 5 volumes is never tested, and a node whose every volume is
// slow (a failing controller, a RAID rebuild, a host its hypervisor
// throttles) looks healthy. The agent therefore also sends every volume's
// latencies, samples, device kind and load ([Recorder.Latencies]), and the
// service compares like volumes across nodes.
package disk
