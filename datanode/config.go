package datanode

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/rolling"
)

// Config is the configuration of one DataNode-side agent. The fields that
// mirror a Hadoop key name it; the binary reads the keys, this package
// never reads files.
//
// Start from DefaultConfig, set ID and NameNodes, and call Validate (New
// does). A Config is a plain value; New copies it.
type Config struct {
	// ID is this node's id, the "host:port" its peers and the NameNode-side
	// services know it by (HDFS: the DataNode's transfer address).
	ID string
	// NameNodes are the base URLs of the NameNode-side services to send
	// heartbeats to, each on its own schedule. At least one, unless
	// FollowNameNodes.
	NameNodes []string
	// FollowNameNodes says the services come and go while the agent runs
	// (Agent.SetNameNodes, from a registry): NameNodes may be empty.
	FollowNameNodes bool
	// AuthToken, when not empty, is sent as "Authorization: Bearer
	// AuthToken" with every heartbeat.
	AuthToken string

	// DataListen is the address of the data port that serves probe
	// pipelines, "" for none. DataListener, when set, is used instead.
	DataListen string
	// DataListener is an open listener for the data port; the agent closes
	// it when Run returns. Handy for tests and demos that listen on port 0
	// before they know the peers' ids.
	DataListener net.Listener
	// Peers are the ids (data ports) of the agents to build probe pipelines
	// from. This node's own id may be listed; it is skipped. Empty: this
	// agent starts no probe blocks (it still relays and times those of
	// others on its data port).
	Peers []string
	// HadoopJMX, when set, is the /jmx URL of a Hadoop DataNode beside the
	// agent; its SendPacketDownstreamAvgInfo replaces the agent's own
	// latencies as the source of the slow-peer report. It excludes Peers
	// and PeerMetrics.
	HadoopJMX string
	// PeerMetrics, when set, is the source of the slow-peer report, fed by
	// the program that embeds the agent (and by the data port, if any).
	// Nil: the agent makes its own.
	PeerMetrics *PeerMetrics
	// HTTPListen is dfs.datanode.http.address (flag -http-listen): the
	// address of the agent's own HTTP port, which serves /jmx (the bean
	// Hadoop:service=DataNode,name=DataNodeInfo), /metrics and /healthz;
	// "" for none, the default. Hadoop's default is 0.0.0.0:9864, but an
	// agent beside a Hadoop DataNode shares its hdfs-site.xml and that
	// port, so the agent opens a port only when told to. HTTPListener,
	// when set, is used instead. Heartbeats announce the port
	// (reports.Heartbeat.HTTPAddress), an unspecified listen host replaced
	// by the host of ID, so the service can list it as the node's infoAddr.
	HTTPListen string
	// Conf, when set, is served at /conf on the HTTP port: the effective
	// configuration, as a Hadoop DataNode serves it (the binary builds it
	// with package hadoopconf).
	Conf http.Handler
	// HTTPListener is an open listener for the HTTP port; the agent closes
	// it when Run returns.
	HTTPListener net.Listener
	// SoftwareVersion is the agent's version, the Version and
	// SoftwareVersion of its /jmx DataNodeInfo (as "slowpeer version"
	// prints it); empty leaves both out.
	SoftwareVersion string
	// FaultReceiveDelay makes the agent wait this long before it
	// acknowledges each probe packet it receives, as Hadoop's
	// DataNodeFaultInjector.delaySendingAckToUpstream; 0 in production.
	FaultReceiveDelay time.Duration

	// PeerStatsEnabled is dfs.datanode.peer.stats.enabled, default true.
	// False turns measurement and reporting off, as on a Hadoop DataNode:
	// the agent sends no probe blocks, times nothing it relays, reads no
	// -hadoop-jmx, and its heartbeats carry no slow-peer report; its /jmx
	// shows SendPacketDownstreamAvgInfo as null. The data port still
	// relays the probes of others, who need it for their measurements.
	PeerStatsEnabled bool

	// HeartbeatInterval is dfs.heartbeat.interval, default 3s.
	HeartbeatInterval time.Duration
	// ReportInterval is dfs.datanode.outliers.report.interval, default 5m
	// (Hadoop's: 30m):
	// a slow-peer report goes to each service this long after the previous
	// one was delivered to it.
	ReportInterval time.Duration
	// MinOutlierDetectionSamples is
	// dfs.datanode.peer.metrics.min.outlier.detection.samples, default 20
	// (Hadoop's: 1000): a peer takes part in the test with more samples
	// than this.
	MinOutlierDetectionSamples int64
	// MinOutlierDetectionNodes is dfs.datanode.min.outlier.detection.nodes,
	// default 10: with fewer peers taking part the test is skipped.
	MinOutlierDetectionNodes int
	// LowThreshold is dfs.datanode.slowpeer.low.threshold.ms, default 5 ms:
	// no peer at or below it is slow. With probes as the source the agent
	// uses ProbeFloor instead (probefloor.go).
	LowThreshold time.Duration
	// RollingWindow is slowpeer.rolling.window, default 1m (Hadoop
	// hard-codes 5m).
	RollingWindow time.Duration
	// RollingWindows is slowpeer.rolling.windows, default 3 (Hadoop
	// hard-codes 36).
	RollingWindows int
	// MaxPeerLatencies is slowpeer.max.peer.latencies, default 64: the
	// most entries of the peerLatencies sent with a report (the slowest
	// half and the peers with most samples, heartbeatLatencies).
	MaxPeerLatencies int

	// ProbeInterval is slowpeer.probe.interval, default 1s: the time between
	// the starts of two probe blocks of this agent.
	ProbeInterval time.Duration
	// ProbePackets is slowpeer.probe.packets, default 16.
	ProbePackets int
	// ProbePacketBytes is slowpeer.probe.packet.size, default 64 KiB.
	ProbePacketBytes int
	// ProbeMaxBytesPerSecond is slowpeer.probe.max.bandwidth, default 4 MiB:
	// the bound on ProbePackets × ProbePacketBytes / ProbeInterval, the
	// payload this agent injects into probe pipelines per second.
	ProbeMaxBytesPerSecond int64
	// ProbeMinBitsPerSecond is slowpeer.probe.min.rate, default 500 Mbit/s:
	// the throughput that sets ProbeFloor.
	ProbeMinBitsPerSecond int64
	// ProbeTimeout is slowpeer.probe.timeout, default 10s, the limit of
	// every network operation of a probe; waiting for an acknowledgement
	// from k nodes downstream may take k times this.
	ProbeTimeout time.Duration
	// ProbeMaxFailures is slowpeer.probe.max.failures, default 3: after
	// this many failures in a row to reach a peer (a refused or timed-out
	// connection, one that broke midway), with no packet acknowledged in
	// between, the agent drops its averages of that peer, so that a dead
	// node leaves the next report instead of staying slow for as long as
	// the rolling windows span (RollingSpan: 3 minutes by default, 3 hours
	// with Hadoop's windows). 0 never drops them.
	ProbeMaxFailures int
	// ProbeCoverage is slowpeer.probe.coverage, default 30s: every peer
	// gets one of the agent's probe blocks at least this often, as far as
	// the probe bandwidth allows (Config.Coverage).
	ProbeCoverage time.Duration
	// ProbeConfirmBudget is slowpeer.probe.confirm.budget, default 60: the
	// probe blocks a minute the agent writes at the services' request;
	// requests past it are ignored and counted. 0 obeys none.
	ProbeConfirmBudget int
	// HadoopJMXInterval is slowpeer.hadoop.jmx.interval, default 1m.
	HadoopJMXInterval time.Duration

	// Volumes are the DataNode's volumes, dfs.datanode.data.dir (flag
	// -volumes, which wins; ParseDataDirs reads either), each an existing
	// directory, measured from the kernel's counters, probes and, with
	// HadoopJMX, the DataNode's volume beans; heartbeats carry their
	// slow-disk report with the slow-peer report. Empty: no disk is
	// measured and no slow-disk report is sent.
	Volumes []disk.Volume
	// MinOutlierDetectionDisks is dfs.datanode.min.outlier.detection.disks,
	// default 5: with fewer volumes of one StorageType Hadoop's test of
	// them is skipped.
	MinOutlierDetectionDisks int
	// SlowDiskLowThreshold is dfs.datanode.slowdisk.low.threshold.ms,
	// default 20 ms: no volume at or below it is slow.
	SlowDiskLowThreshold time.Duration
	// DiskMinSamples is slowpeer.disk.min.samples, default 3: an operation
	// of a volume takes part in Hadoop's test with at least this many
	// samples of one source. Hadoop takes every volume (its samples are
	// the DataNode's own I/O, thousands); the agent's probes of an idle
	// disk are a few a window, and one that waited behind a neighbour
	// must not make a volume slow.
	DiskMinSamples int64
	// DiskBusyUtilization is slowpeer.disk.busy.utilization, default 0.3:
	// a volume whose device had I/O in flight this share of the time or
	// more is busy, and reported slow only when its device's time per
	// operation and per byte are outliers too, not on latencies that
	// queueing behind healthy work swells (disk.Detector.BusyUtilization).
	DiskBusyUtilization float64
	// DiskStatsInterval is slowpeer.disk.stats.interval, default 1s: how
	// often the kernel's counters of the volumes' devices are read.
	DiskStatsInterval time.Duration
	// DiskProbeInterval is slowpeer.disk.probe.interval, default 1s: the
	// least time between two probe operations on one volume; 0 turns the
	// probes off.
	DiskProbeInterval time.Duration
	// DiskProbeBudget is slowpeer.disk.probe.budget, default 1ms: the disk
	// time the probes of one volume may take per second (0.1 %); after an
	// operation that took d, counted twice for the journal commit and
	// write-back it leaves behind, the next waits at least 2d / budget
	// seconds, a minute at most.
	DiskProbeBudget time.Duration
	// HadoopJMXPeerPort is slowpeer.hadoop.jmx.peer.port, default 0. Hadoop
	// names the peers in SendPacketDownstreamAvgInfo by their HTTP info
	// address (ip:9864), not by their transfer address (ip:9866) that
	// DataNode ids use; a port here replaces the port of every peer the
	// agent reports, so that reports name peers as their own agents name
	// themselves. 0 keeps Hadoop's names.
	HadoopJMXPeerPort int
	// MaxRetryBackoff is slowpeer.heartbeat.max.backoff, default 30s; at
	// least HeartbeatInterval.
	MaxRetryBackoff time.Duration

	// ProgressInterval is how often the agent logs a summary at level
	// Info, default 1m; a negative value turns the summary off.
	ProgressInterval time.Duration
	// Logger receives the agent's logs; nil means slog.Default(), as in
	// every package of slowpeer.
	Logger *slog.Logger
	// HTTPClient sends heartbeats and reads /jmx; nil uses a client of
	// its own. Each request is bounded by a context deadline, not by the
	// client's Timeout.
	HTTPClient *http.Client
	// TLS configures the agent's own client for https:// services and
	// -hadoop-jmx URLs: the CAs to trust, the client certificate for
	// mutual TLS (package certs builds one that re-reads it). Nil uses
	// Go's defaults, the system's roots. Unused with HTTPClient.
	TLS *tls.Config
	// Dial opens the agent's connections to other agents' data ports (its
	// probe blocks and the blocks it relays); nil uses a net.Dialer. The
	// fault demo dials from inside a network namespace with it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultConfig returns a Config with every default set and no ID,
// NameNodes or latency source.
func DefaultConfig() Config {
	return Config{
		HeartbeatInterval:          DefaultHeartbeatInterval,
		ReportInterval:             DefaultReportInterval,
		PeerStatsEnabled:           DefaultPeerStatsEnabled,
		MinOutlierDetectionSamples: DefaultMinOutlierDetectionSamples,
		MinOutlierDetectionNodes:   DefaultMinOutlierDetectionNodes,
		LowThreshold:               DefaultLowThreshold,
		RollingWindow:              DefaultRollingWindow,
		RollingWindows:             DefaultRollingWindows,
		MaxPeerLatencies:           DefaultMaxPeerLatencies,
		ProbeInterval:              DefaultProbeInterval,
		ProbePackets:               DefaultProbePackets,
		ProbePacketBytes:           DefaultProbePacketBytes,
		ProbeMaxBytesPerSecond:     DefaultProbeMaxBytesPerSecond,
		ProbeMinBitsPerSecond:      DefaultProbeMinBitsPerSecond,
		ProbeTimeout:               DefaultProbeTimeout,
		ProbeMaxFailures:           DefaultProbeMaxFailures,
		ProbeCoverage:              DefaultProbeCoverage,
		ProbeConfirmBudget:         DefaultProbeConfirmBudget,
		HadoopJMXInterval:          DefaultHadoopJMXInterval,
		HadoopJMXPeerPort:          DefaultHadoopJMXPeerPort,
		MinOutlierDetectionDisks:   DefaultMinOutlierDetectionDisks,
		SlowDiskLowThreshold:       DefaultSlowDiskLowThreshold,
		DiskMinSamples:             DefaultDiskMinSamples,
		DiskBusyUtilization:        DefaultDiskBusyUtilization,
		DiskStatsInterval:          DefaultDiskStatsInterval,
		DiskProbeInterval:          DefaultDiskProbeInterval,
		DiskProbeBudget:            DefaultDiskProbeBudget,
		MaxRetryBackoff:            DefaultMaxRetryBackoff,
		ProgressInterval:           DefaultProgressInterval,
	}
}

// DefaultLocalConfig returns DefaultConfig shortened from minutes to
// seconds for a cluster on one machine (the disk demo, end-to-end tests), where
// a slow node must show within seconds. The service of such a cluster uses
// namenode.DefaultLocalConfig, which expects this schedule.
//
// What limits the time to detect is how fast every agent times more than
// MinOutlierDetectionSamples packets of at least MinOutlierDetectionNodes
// peers: a probe block gives its samples to one (next-to-last, last) pair,
// and a block through a slow node takes ProbePackets × its delay. Short
// blocks of small packets, started often, cover the pairs soonest: with 12
// agents on loopback an agent has tested all its peers after 6 to 10 s,
// so the second or third report names a slow node.
//
//   - HeartbeatInterval 1s (not 3s) and ReportInterval 5s (not 5m): a
//     report at most R + H after the one before.
//   - MaxRetryBackoff 2s (not 30s): an agent started before its service
//     reaches it within two heartbeats.
//   - MinOutlierDetectionSamples 100 (not 20): enough packets for an
//     average of a loopback link within a few seconds of probing. The
//     first report goes as soon as there is data, and the coverage rounds
//     give every peer its samples in step, so that report holds barely
//     more than this many of each: with 50 (7 blocks of 8), one block
//     that waited as a whole on a busy machine could make a healthy peer
//     3 × the median; random pipelines had given most peers more.
//   - ProbeInterval 50ms, ProbePackets 8, ProbePacketBytes 16 KiB (not 1s,
//     16, 64 KiB): 2.5 MiB/s, under ProbeMaxBytesPerSecond.
//   - ProbeTimeout 5s (not 10s): a stuck probe is given up sooner.
//   - RollingWindow 5m × RollingWindows 36, Hadoop's (not 1m × 3): a
//     local cluster does not live long enough for them to expire, and the
//     demo and the end-to-end tests were measured with them.
//   - DiskProbeInterval 250ms and DiskProbeBudget 100ms (not 1s and 1ms):
//     a volume's operations are probed a few times within a report
//     interval, at up to a tenth of a loop device's time.
//
// The other defaults are DefaultConfig's.
func DefaultLocalConfig() Config {
	c := DefaultConfig()
	c.HeartbeatInterval, c.ReportInterval = time.Second, 5*time.Second
	c.MaxRetryBackoff = 2 * time.Second
	c.MinOutlierDetectionSamples = 100
	c.ProbeInterval, c.ProbePackets, c.ProbePacketBytes = 50*time.Millisecond, 8, 16<<10
	c.ProbeTimeout = 5 * time.Second
	c.RollingWindow, c.RollingWindows = rolling.HadoopDefaultWindow, rolling.HadoopDefaultWindows
	c.DiskProbeInterval, c.DiskProbeBudget = 250*time.Millisecond, 100*time.Millisecond
	return c
}

// ProbeBytesPerSecond returns the probe payload this agent injects per
// second at most: ProbePackets × ProbePacketBytes / ProbeInterval.
func (c Config) ProbeBytesPerSecond() float64 {
	return float64(c.ProbePackets) * float64(c.ProbePacketBytes) / c.ProbeInterval.Seconds()
}

// RollingSpan returns the span of the rolling windows, RollingWindow ×
// RollingWindows: what a report's averages and block medians cover, and
// the delay of the early second look at a newly named slow peer
// (Scheduler.Named).
func (c Config) RollingSpan() time.Duration {
	return c.RollingWindow * time.Duration(c.RollingWindows)
}
