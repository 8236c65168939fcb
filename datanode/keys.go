package datanode

import (
	"time"

	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
)

// The Hadoop keys the agent reads, with their defaults (docs/configuration.md,
// "Keys"). The binary reads the keys from hdfs-site.xml and -D;
// Config's fields mirror them.
const (
	// HeartbeatIntervalKey is the heartbeat period. A bare number is
	// seconds.
	HeartbeatIntervalKey = reports.HeartbeatIntervalKey
	// DefaultHeartbeatInterval is Hadoop's DFS_HEARTBEAT_INTERVAL_DEFAULT.
	DefaultHeartbeatInterval = reports.DefaultHeartbeatInterval

	// ReportIntervalKey is the slow-peer report period. A bare number is
	// milliseconds.
	ReportIntervalKey = reports.OutliersReportIntervalKey
	// DefaultReportInterval is slowpeer's 5 minutes
	// (reports.DefaultOutliersReportInterval; Hadoop's is 30).
	DefaultReportInterval = reports.DefaultOutliersReportInterval

	// MinOutlierDetectionSamplesKey is the number of samples a peer needs
	// (strictly more) to take part in the outlier test.
	MinOutlierDetectionSamplesKey = "dfs.datanode.peer.metrics.min.outlier.detection.samples"
	// DefaultMinOutlierDetectionSamples is slowpeer's 20 (Hadoop's
	// DFS_DATANODE_PEER_METRICS_MIN_OUTLIER_DETECTION_SAMPLES_DEFAULT is
	// 1000): at one probe block of 16 packets a second over 40 remote
	// peers a pair gets about 24 packets a minute, so the 3 minutes of
	// DefaultRollingWindows hold about 70; over 20, a healthy pair's mean
	// is within about 12 % of its own. 1000 would take 40 minutes.
	DefaultMinOutlierDetectionSamples = 20
	// HadoopMinOutlierDetectionSamples is Hadoop's default.
	HadoopMinOutlierDetectionSamples = 1000

	// MaxPeerLatenciesKey and DefaultMaxPeerLatencies: the most
	// peerLatencies an agent sends (reports, shared with the service).
	MaxPeerLatenciesKey     = reports.MaxPeerLatenciesKey
	DefaultMaxPeerLatencies = reports.DefaultMaxPeerLatencies

	// MinOutlierDetectionNodesKey is the number of peers the outlier test
	// needs to run.
	MinOutlierDetectionNodesKey = "dfs.datanode.min.outlier.detection.nodes"
	// DefaultMinOutlierDetectionNodes is Hadoop's
	// DFS_DATANODE_MIN_OUTLIER_DETECTION_NODES_DEFAULT.
	DefaultMinOutlierDetectionNodes = outlier.DefaultMinResources

	// LowThresholdKey is the latency, in milliseconds, at or below which no
	// peer is slow.
	LowThresholdKey = "dfs.datanode.slowpeer.low.threshold.ms"
	// DefaultLowThreshold is Hadoop's
	// DFS_DATANODE_SLOWPEER_LOW_THRESHOLD_MS_DEFAULT.
	DefaultLowThreshold = outlier.DefaultLowThreshold

	// PeerStatsEnabledKey turns measuring and reporting peers on or off.
	PeerStatsEnabledKey = "dfs.datanode.peer.stats.enabled"
	// DefaultPeerStatsEnabled is true. Hadoop's is false; slowpeer's agent
	// exists to keep these statistics, so they are on unless turned off.
	DefaultPeerStatsEnabled = true

	// HTTPAddressKey is the agent's own HTTP port (/jmx, /metrics,
	// /healthz), Hadoop's DataNode info port key. Unset, there is none: an
	// agent beside a real DataNode shares its hdfs-site.xml and must not
	// take its port (9864).
	HTTPAddressKey = "dfs.datanode.http.address"
)

// slowpeer's own keys of the agent, with their defaults. Bare durations are
// milliseconds; byte sizes take Hadoop's binary suffixes (64k).
const (
	// RollingWindowKey is the size of one rolling window.
	RollingWindowKey = "slowpeer.rolling.window"
	// DefaultRollingWindow is 1 minute (Hadoop hard-codes 5,
	// rolling.HadoopDefaultWindow). With DefaultRollingWindows the averages
	// span 3 minutes, less than a report interval: a pause of a few
	// seconds then spoils at most one report of each reporter, which the
	// slow set's hysteresis outwaits, and a slow peer shows within a few
	// minutes instead of the 40 that a 3-hour average takes.
	DefaultRollingWindow = time.Minute

	// RollingWindowsKey is the number of rolling windows.
	RollingWindowsKey = "slowpeer.rolling.windows"
	// DefaultRollingWindows is 3 (Hadoop hard-codes 36,
	// rolling.HadoopDefaultWindows).
	DefaultRollingWindows = 3

	// ProbeIntervalKey is the time between the starts of two probe blocks.
	ProbeIntervalKey = "slowpeer.probe.interval"
	// DefaultProbeInterval is one probe block a second.
	DefaultProbeInterval = time.Second

	// ProbePacketsKey is the number of packets in one probe block.
	ProbePacketsKey = "slowpeer.probe.packets"
	// DefaultProbePackets is 16 packets a block.
	DefaultProbePackets = 16

	// ProbePacketBytesKey is the payload of one probe packet.
	ProbePacketBytesKey = "slowpeer.probe.packet.size"
	// DefaultProbePacketBytes is HDFS's default write packet size
	// (dfs.client-write-packet-size), 64 KiB.
	DefaultProbePacketBytes = 64 << 10

	// ProbeMaxBytesPerSecondKey bounds the probe payload an agent injects
	// per second.
	ProbeMaxBytesPerSecondKey = "slowpeer.probe.max.bandwidth"
	// DefaultProbeMaxBytesPerSecond is 4 MiB/s, four times what the
	// defaults above inject (16 × 64 KiB a second), so that the defaults
	// pass and a slip such as slowpeer.probe.packet.size=64m does not.
	DefaultProbeMaxBytesPerSecond = 4 << 20

	// ProbeTimeoutKey is how long one network operation of a probe may take
	// (a dial, a packet, or one hop's acknowledgement).
	ProbeTimeoutKey = "slowpeer.probe.timeout"
	// DefaultProbeTimeout is ten seconds.
	DefaultProbeTimeout = 10 * time.Second

	// ProbeMaxFailuresKey is how many probes in a row may fail to reach a
	// peer (a refused or timed-out connection, or one that broke) before
	// the agent drops what it measured of that peer; 0 never drops it.
	ProbeMaxFailuresKey = "slowpeer.probe.max.failures"
	// DefaultProbeMaxFailures is three: one refused dial is a blip, three
	// without a single acknowledged packet between them mean the peer is
	// gone, and its averages (3 minutes of them by default, 3 hours with
	// Hadoop's windows) would keep it reported slow.
	DefaultProbeMaxFailures = 3

	// ProbeCoverageKey is the longest time between two probe blocks of the
	// agent to the same peer: its coverage rounds (Coverage) give every
	// peer one block a round, and a round lasts at most half of this.
	ProbeCoverageKey = "slowpeer.probe.coverage"
	// DefaultProbeCoverage is 30 seconds: a slow peer or link is in a
	// heartbeat's recentLatencies within 30 s plus a heartbeat, which the
	// fast path's confirmation rounds need to stay within a minute.
	DefaultProbeCoverage = 30 * time.Second

	// ProbeConfirmBudgetKey is how many probe blocks a minute the agent
	// writes at the services' request (heartbeat replies' probe); requests
	// past it are ignored and counted. 0 obeys none.
	ProbeConfirmBudgetKey = "slowpeer.probe.confirm.budget"
	// DefaultProbeConfirmBudget is 60 blocks a minute: a confirmation
	// round asks an agent for a few blocks (3 by default), so an agent can
	// witness for some 20 rounds a minute, and its confirmations take at
	// most a minute's worth of its coverage probes' bandwidth.
	DefaultProbeConfirmBudget = 60
	// MaxProbeConfirmBudget bounds slowpeer.probe.confirm.budget: 6000
	// blocks a minute.
	MaxProbeConfirmBudget = 6000

	// HadoopJMXIntervalKey is how often the agent reads a Hadoop
	// DataNode's /jmx.
	HadoopJMXIntervalKey = "slowpeer.hadoop.jmx.interval"
	// DefaultHadoopJMXInterval is a minute.
	DefaultHadoopJMXInterval = time.Minute

	// HadoopJMXPeerPortKey is the port given to the peers read from a
	// Hadoop DataNode's /jmx; 0 keeps theirs.
	HadoopJMXPeerPortKey = "slowpeer.hadoop.jmx.peer.port"
	// DefaultHadoopJMXPeerPort keeps Hadoop's names.
	DefaultHadoopJMXPeerPort = 0

	// MaxRetryBackoffKey is the longest pause between two attempts to
	// reach a NameNode-side service that keeps failing.
	MaxRetryBackoffKey = "slowpeer.heartbeat.max.backoff"
	// DefaultMaxRetryBackoff is thirty seconds.
	DefaultMaxRetryBackoff = 30 * time.Second
)

// DefaultProgressInterval is how often the agent logs a summary of what it
// did. It has no key.
const DefaultProgressInterval = time.Minute

// Hard limits, not configurable.
const (
	// MaxProbePacketBytes is the largest probe packet payload, HDFS's
	// PacketReceiver.MAX_PACKET_SIZE (16 MiB).
	MaxProbePacketBytes = 16 << 20
	// MaxProbePackets is the largest number of packets in one probe block.
	MaxProbePackets = 1 << 16
	// MaxInboundProbes is the most probe connections the data port serves at
	// once; more are closed as soon as they are accepted, and counted.
	MaxInboundProbes = 16
)
