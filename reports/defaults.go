package reports

import "time"

// The schedule both sides of a heartbeat must agree on: the agent sends on
// it, the service judges by it (dead DataNodes, expired reports). Each key
// and its default is declared here once, and the datanode and namenode
// packages reuse them.
const (
	// HeartbeatIntervalKey is the DataNodes' heartbeat period. Hadoop reads
	// a bare number in seconds.
	HeartbeatIntervalKey = "dfs.heartbeat.interval"
	// DefaultHeartbeatInterval is Hadoop's DFS_HEARTBEAT_INTERVAL_DEFAULT.
	DefaultHeartbeatInterval = 3 * time.Second

	// OutliersReportIntervalKey is how often a DataNode sends its slow-peer
	// report; a report stays valid for three times this. A bare number is
	// milliseconds.
	OutliersReportIntervalKey = "dfs.datanode.outliers.report.interval"
	// DefaultOutliersReportInterval is slowpeer's default, 5 minutes
	// (Hadoop's DFS_DATANODE_OUTLIERS_REPORT_INTERVAL_DEFAULT is 30): the
	// slow set's time to detect is about two report intervals, and at 30
	// minutes a slow node is avoided half an hour to an hour late
	// (DETECTION.md, "Simulated clusters"). HadoopOutliersReportInterval
	// is Hadoop's, for -D dfs.datanode.outliers.report.interval=30m.
	DefaultOutliersReportInterval = 5 * time.Minute
	// HadoopOutliersReportInterval is Hadoop's
	// DFS_DATANODE_OUTLIERS_REPORT_INTERVAL_DEFAULT.
	HadoopOutliersReportInterval = 30 * time.Minute

	// MaxPeerLatenciesKey bounds the entries of a heartbeat's
	// peerLatencies: an agent sends at most this many, and the service
	// refuses (429) a heartbeat with more and keeps at most this many cells
	// per reporter in its diagnosis matrix.
	MaxPeerLatenciesKey = "slowpeer.max.peer.latencies"
	// DefaultMaxPeerLatencies is ample for the diagnosis, which judges a
	// node from 5 measured pairs (diagnosis.DefaultMinPairs): an agent
	// sends its slowest peers and a stable sample of the others.
	DefaultMaxPeerLatencies = 64
)
