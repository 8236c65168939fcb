// Package tracker aggregates the slow-peer reports of a cluster's DataNodes
// into the NameNode-side view of which nodes are slow: for every slow node,
// the nodes that currently report it. It is the Go counterpart of Hadoop's
// SlowPeerTracker (hadoop-hdfs, org.apache.hadoop.hdfs.server.blockmanagement,
// HDFS-11194), with the departures that slowpeer's DESIGN.md fixes.
//
// # Reporters per slow node
//
// A DataNode's heartbeat may carry a slow-peer report: the downstream peers
// its outlier test found slow, each with the latency it measured and the
// statistics of the test (median, MAD, upper limit). The [Tracker] keeps,
// for every slow node and every node that reports it, the newest report and
// its arrival time, as SlowPeerTracker.addReport does. A node can be slow
// and report others at once; a report naming its own sender is ignored.
//
// # Supersede
//
// A report is the whole truth of its reporter at the time it arrives:
// [Tracker.Report] replaces everything that reporter said before, so a peer
// it no longer names stops counting at once. Hadoop instead adds each slow
// peer of a heartbeat and leaves earlier ones standing until they expire
// (DatanodeManager.handleHeartbeat). A heartbeat without a report is not
// passed to the Tracker at all, and leaves earlier reports standing.
//
// # Expiry
//
// A report is valid at now while now − arrival < validity, strictly, as
// SlowPeerTracker.filterNodeReports checks against reportValidityMs; the
// validity is 3 × dfs.datanode.outliers.report.interval. Reads never return
// an expired report. [Tracker.Expire] deletes expired entries so that memory
// stays bounded by the live reports; Hadoop keeps them forever.
//
// # Top-N ranking
//
// [Tracker.Top] returns the n slow nodes with the most valid reporters, as
// SlowPeerTracker.getJsonReports, in the JSON shape of Hadoop's
// SlowPeerJsonReport ([reports.SlowNode]). Hadoop ranks by the number of
// reporters alone and emits heap order; here ties are broken by the highest
// valid reported latency, then by node name, so the answer is deterministic.
// Each node's reporters are sorted by name, as Hadoop's SortedSet orders
// them.
//
// # Time and concurrency
//
// The Tracker never reads the clock: every method takes now. It is safe for
// concurrent use and holds its lock only to copy data in or out; formatting
// and sorting happen after.
package tracker
