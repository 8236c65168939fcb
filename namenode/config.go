package namenode

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/hosts"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
	"github.com/slowpeer/slowpeer/tracker"
)

// The Hadoop keys the service reads, with their defaults. The command line
// and hdfs-site.xml use the keys; Config's fields mirror them.
const (
	// HeartbeatIntervalKey is the DataNodes' heartbeat period. Hadoop reads
	// a bare number in seconds.
	HeartbeatIntervalKey = reports.HeartbeatIntervalKey
	// DefaultHeartbeatInterval is Hadoop's DFS_HEARTBEAT_INTERVAL_DEFAULT.
	DefaultHeartbeatInterval = reports.DefaultHeartbeatInterval

	// OutliersReportIntervalKey is how often a DataNode sends its
	// slow-peer report. A bare number is milliseconds.
	OutliersReportIntervalKey = reports.OutliersReportIntervalKey
	// DefaultOutliersReportInterval is the agents' default, 5m
	// (reports.DefaultOutliersReportInterval; Hadoop's is 30m): reports
	// stay valid 15 minutes.
	DefaultOutliersReportInterval = reports.DefaultOutliersReportInterval

	// HeartbeatRecheckIntervalKey is the NameNode's dead-node recheck
	// period. A bare number is milliseconds.
	HeartbeatRecheckIntervalKey = "dfs.namenode.heartbeat.recheck-interval"
	// DefaultHeartbeatRecheckInterval is Hadoop's
	// DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_DEFAULT.
	DefaultHeartbeatRecheckInterval = 5 * time.Minute

	// StaleIntervalKey is how long a DataNode may stay silent before the
	// NameNode counts it stale (NumStaleDataNodes). A bare number is
	// milliseconds.
	StaleIntervalKey = "dfs.namenode.stale.datanode.interval"
	// DefaultStaleInterval is Hadoop's
	// DFS_NAMENODE_STALE_DATANODE_INTERVAL_DEFAULT.
	DefaultStaleInterval = 30 * time.Second

	// MaxNodesToReportKey is the number of slow nodes /slowpeers and the
	// JMX SlowPeersReport give when not asked for another number.
	MaxNodesToReportKey = "dfs.datanode.max.nodes.to.report"
	// DefaultMaxNodesToReport is Hadoop's
	// DFS_DATANODE_MAX_NODES_TO_REPORT_DEFAULT.
	DefaultMaxNodesToReport = 5

	// MaxSlowPeerCollectNodesKey is the number of top slow nodes the
	// NameNode collects as the set to keep new work away from.
	MaxSlowPeerCollectNodesKey = "dfs.namenode.max.slowpeer.collect.nodes"
	// DefaultMaxSlowPeerCollectNodes is Hadoop's
	// DFS_NAMENODE_MAX_SLOWPEER_COLLECT_NODES_DEFAULT.
	DefaultMaxSlowPeerCollectNodes = 5

	// SlowEnterAfterKey, SlowEnterReportersKey and SlowLeaveAfterKey are
	// the hysteresis of the slow set (tracker.SlowSetConfig); bare
	// durations are milliseconds.
	SlowEnterAfterKey     = "slowpeer.slow.enter.after"
	SlowEnterReportersKey = "slowpeer.slow.enter.reporters"
	SlowLeaveAfterKey     = "slowpeer.slow.leave.after"

	// SuspectEnabledKey, SuspectRatioKey, SuspectMildRatioKey and
	// ConfirmRoundsKey are the
	// fast path's (suspects.go, package suspect).
	SuspectEnabledKey   = suspect.EnabledKey
	SuspectRatioKey     = suspect.RatioKey
	SuspectMildRatioKey = suspect.MildRatioKey
	ConfirmRoundsKey    = suspect.RoundsKey
)

// Service defaults that have no Hadoop key.
const (
	// DefaultShutdownTimeout bounds how long Serve waits for in-flight
	// requests once its context is done.
	DefaultShutdownTimeout = 10 * time.Second
	// MaxHeartbeatBytes is the largest heartbeat body accepted; a larger
	// one is answered 413.
	MaxHeartbeatBytes = 1 << 20
	// MaxTop is the largest N /slowpeers?top=N accepts.
	MaxTop = 100000
)

// Config is the configuration of the NameNode-side service. Its zero value
// is not valid; start from DefaultConfig. A Config is a plain value, safe
// to copy.
type Config struct {
	// Listen is the HTTP address the daemon listens on, "host:port". The
	// Server itself does not listen (Serve takes a listener); the address
	// is kept here for the command and for the JMX HostAndPort.
	Listen string

	// HeartbeatInterval mirrors dfs.heartbeat.interval (default 3s). It
	// enters the dead-node rule and paces the periodic Step.
	HeartbeatInterval time.Duration
	// OutliersReportInterval mirrors dfs.datanode.outliers.report.interval
	// (default 5m, slowpeer's; Hadoop's is 30m). A slow-peer report stays
	// valid for three times this, as in Hadoop's SlowPeerTracker.
	OutliersReportInterval time.Duration
	// HeartbeatRecheckInterval mirrors
	// dfs.namenode.heartbeat.recheck-interval (default 5m). A DataNode is
	// dead after 2 × this + 10 × HeartbeatInterval without a heartbeat.
	HeartbeatRecheckInterval time.Duration
	// StaleInterval mirrors dfs.namenode.stale.datanode.interval (default
	// 30s): a live DataNode silent for at least this long is stale, as
	// DatanodeInfo.isStale decides, and counts in the JMX
	// NumStaleDataNodes.
	StaleInterval time.Duration
	// MaxNodesToReport mirrors dfs.datanode.max.nodes.to.report (default
	// 5): the N of /slowpeers without ?top= and of the JMX SlowPeersReport.
	MaxNodesToReport int
	// MaxSlowPeerCollectNodes mirrors
	// dfs.namenode.max.slowpeer.collect.nodes (default 5): how many of the
	// top slow nodes SlowNodes returns, the set that other parts (the
	// HiveServer picker) keep new work away from, as Hadoop's block
	// placement does with DatanodeManager.getSlowPeersUuidSet.
	MaxSlowPeerCollectNodes int
	// SlowSet is the hysteresis of the slow set that SlowNodes, SlowHosts,
	// the heartbeat's answer and the alerts use, fed by the diagnosis
	// (slowset.go; slowpeer.slow.enter.after,
	// slowpeer.slow.enter.reporters, slowpeer.slow.leave.after; default
	// tracker.DefaultSlowSetConfig). Links enter once found in two
	// reports in a row of the node that measures them
	// (diagnosis.LinkConfirmer; at once when EnterAfter is 0) and leave
	// after LeaveAfter (tracker.LinkSlowSetConfig).
	// /slowpeers keeps Hadoop's raw meaning.
	SlowSet tracker.SlowSetConfig
	// SuspectEnabled mirrors slowpeer.suspect.enabled (default true): the
	// fast path (suspects.go) judges the agents' recentLatencies on every
	// heartbeat, confirms suspects by probe requests in the heartbeat
	// replies, and admits what it confirms to the slow sets at once.
	SuspectEnabled bool
	// Suspect is the fast path's detector: Ratio mirrors
	// slowpeer.suspect.ratio (default 3), Rounds slowpeer.confirm.rounds
	// (default 2); the Server sets Rack from Topology.
	Suspect suspect.Config
	// Disks is the configuration of slow disks (diskconfig.go); their
	// slow set has SlowSet's delays, one finding enough.
	Disks DiskConfig

	// SlowNodesFloor is slowpeer.slownodes.floor.ms (default 0.25 ms): the
	// latency a slow node or link of GET /v1/slownodes must exceed.
	SlowNodesFloor time.Duration
	// TopologyFile is net.topology.table.file.name, Hadoop's "host rack"
	// table; the binary reads it into Topology. The Server ignores it.
	TopologyFile string
	// Topology maps hosts to racks for the diagnosis; the zero Topology
	// knows no racks, and the diagnosis then makes no rack findings.
	Topology diagnosis.Topology

	// HostsExcludeFile mirrors dfs.hosts.exclude (default none): Hadoop's
	// file of the DataNodes to take out of service (exclude.go). The
	// Server reads it in RefreshNodes, which the binary calls at start.
	HostsExcludeFile string
	// HostsLookup, when set, resolves the host names of
	// HostsExcludeFile, so that a name excludes the DataNodes known by
	// its addresses too, as Hadoop's HostFileManager resolves them. Nil
	// matches names as written only.
	HostsLookup hosts.Lookup

	// AuthToken, when not empty, is the bearer token every POST must
	// carry. When empty the service is open and says so once at start.
	AuthToken string
	// Advertise is the address this replica is registered under
	// (-advertise): with AuthToken, the service answers a client's
	// reports.ChallengeHeader with the proof for it (proof.go), so that
	// clients that found it in a registry trust it with the token.
	// Empty: no proof is given.
	Advertise string
	// AuthReads, with AuthToken, asks the token of reads too (GET, HEAD):
	// without it every GET is open to anyone who can reach the service
	// (flag -auth-reads).
	AuthReads bool
	// TLS, when set, makes Serve speak HTTPS only, with this config (flags
	// -tls-cert, -tls-key, -tls-client-ca; see package certs). Nil serves
	// plain HTTP.
	TLS *tls.Config
	// ShutdownTimeout bounds how long Serve lets in-flight requests run
	// after its context is done (default 10s).
	ShutdownTimeout time.Duration

	// Hostname is the tag.Hostname of the JMX beans, as Hadoop's metrics2
	// gives every record the host's name; empty means os.Hostname().
	Hostname string
	// SoftwareVersion is the service's version, the JMX NameNodeInfo
	// SoftwareVersion (as "slowpeer version" prints it); empty leaves the
	// attribute out.
	SoftwareVersion string
	// State, when not nil, returns the replica's HA state for the JMX
	// NameNodeStatus State: "active" (the leader of the replicas
	// registered with -registry) or "standby" (a discovery.Replica's
	// State); "" leaves the attribute out. Nil means "active": a lone
	// service does the leader's work. It is called at every /jmx request
	// and must be safe for concurrent use.
	State func() string
	// The limits (limits.go), which hold in open mode too.

	// MaxDataNodes mirrors slowpeer.namenode.max.datanodes (default
	// 50000): the most nodes the DataNode table holds.
	MaxDataNodes int
	// MaxTrackerEntries mirrors slowpeer.namenode.max.tracker.entries
	// (default 1000000): the most (slow node, reporter) entries held.
	MaxTrackerEntries int
	// MaxSlowNodes mirrors slowpeer.namenode.max.slow.nodes (default
	// 10000): the most distinct nodes reported slow.
	MaxSlowNodes int
	// MaxPeerLatencies mirrors slowpeer.max.peer.latencies (default 64):
	// the most peerLatencies a heartbeat may carry, and the cells kept
	// per reporter.
	MaxPeerLatencies int
	// MaxDiagnosisReporters mirrors slowpeer.max.diagnosis.reporters
	// (default 10000): the most rows of the diagnosis matrix.
	MaxDiagnosisReporters int
	// MetricsSlowNodes mirrors slowpeer.namenode.metrics.slow.nodes
	// (default 50): the top slow nodes with a reporters series.
	MetricsSlowNodes int
	// DataNodeForgetAfter mirrors slowpeer.namenode.datanode.forget.after
	// (default 24h): a node silent for longer leaves the table. It must
	// be longer than DeadAfter.
	DataNodeForgetAfter time.Duration
	// MaxConnections mirrors slowpeer.namenode.max.connections (default
	// 16384, a keep-alive for each of 16 000 DataNodes): the most
	// connections Serve serves at once, lowered to what the process may
	// open (openFilesCap); a quarter of them is the heartbeats'.
	MaxConnections int
	// HeaderReadTimeout mirrors slowpeer.namenode.header.read.timeout
	// (default 5s): how long a client may take to send a request header.
	HeaderReadTimeout time.Duration
	// BodyReadTimeout mirrors slowpeer.namenode.body.read.timeout
	// (default 5s): how long a client may take to send a request's body
	// after its header.
	BodyReadTimeout time.Duration

	// Logger receives the access log and the service's events; nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}

// DefaultConfig returns a Config with the defaults (Hadoop's, but for the
// agents' 5-minute report interval and the slow set), listening on
// 127.0.0.1:9871 without an auth token.
func DefaultConfig() Config {
	return Config{
		Listen:                   "127.0.0.1:9871",
		HeartbeatInterval:        DefaultHeartbeatInterval,
		OutliersReportInterval:   DefaultOutliersReportInterval,
		HeartbeatRecheckInterval: DefaultHeartbeatRecheckInterval,
		StaleInterval:            DefaultStaleInterval,
		MaxNodesToReport:         DefaultMaxNodesToReport,
		MaxSlowPeerCollectNodes:  DefaultMaxSlowPeerCollectNodes,
		SlowSet:                  tracker.DefaultSlowSetConfig(),
		SuspectEnabled:           true,
		Suspect:                  suspect.DefaultConfig(),
		Disks:                    DefaultDiskConfig(),
		ShutdownTimeout:          DefaultShutdownTimeout,
		MaxDataNodes:             DefaultMaxDataNodes,
		MaxTrackerEntries:        DefaultMaxTrackerEntries,
		MaxSlowNodes:             DefaultMaxSlowNodes,
		MaxPeerLatencies:         DefaultMaxPeerLatencies,
		MaxDiagnosisReporters:    DefaultMaxDiagnosisReporters,
		MetricsSlowNodes:         DefaultMetricsSlowNodes,
		DataNodeForgetAfter:      DefaultDataNodeForgetAfter,
		MaxConnections:           DefaultMaxConnections,
		HeaderReadTimeout:        DefaultHeaderReadTimeout,
		BodyReadTimeout:          DefaultBodyReadTimeout,
		SlowNodesFloor:           DefaultSlowNodesFloor,
	}
}

// LocalEnterReporters is DefaultLocalConfig's slowpeer.slow.enter.reporters:
// 3 measured pairs.
const LocalEnterReporters = 3

// DefaultLocalConfig returns DefaultConfig with the DataNodes' schedule
// shortened from minutes to seconds, as datanode.DefaultLocalConfig sends
// it, for a cluster on one machine (the disk demo, end-to-end tests) where a
// slow node must show within seconds:
//
//   - HeartbeatInterval 1s (not 3s): the dead-node rule expects the
//     agents' faster heartbeats.
//   - OutliersReportInterval 5s (not 5m): a report stays valid for 15s, so
//     a node that stops being reported slow leaves /slowpeers quickly.
//   - SlowSet without delays: a local cluster's slow node must be avoided
//     within seconds. A node enters at the first diagnosis that finds it
//     on at least LocalEnterReporters pairs, and leaves at the first
//     that does not.
//
// HeartbeatRecheckInterval keeps its 5m: on loopback no DataNode dies
// unless asked to.
func DefaultLocalConfig() Config {
	c := DefaultConfig()
	c.HeartbeatInterval = time.Second
	c.OutliersReportInterval = 5 * time.Second
	c.SlowSet = tracker.SlowSetConfig{EnterReporters: LocalEnterReporters}
	return c
}

// ReportValidity is how long a slow-peer report counts: three times the
// report interval (SlowPeerTracker.reportValidityMs).
func (c Config) ReportValidity() time.Duration { return 3 * c.OutliersReportInterval }

// DeadAfter is how long a DataNode may stay silent before it is dead.
func (c Config) DeadAfter() time.Duration {
	return DeadAfter(c.HeartbeatInterval, c.HeartbeatRecheckInterval)
}

// StaleAfter returns how long a live DataNode may be silent before it is
// stale: StaleInterval, but at least three heartbeat intervals, as
// DatanodeManager.getStaleIntervalFromConf resets a shorter interval to
// dfs.namenode.stale.datanode.minimum.interval (3) heartbeats.
func (c Config) StaleAfter() time.Duration {
	return max(c.StaleInterval, 3*c.HeartbeatInterval)
}

// DeadAfter returns Hadoop's heartbeat expiry: 2 × recheck + 10 ×
// heartbeat interval (DatanodeManager.heartbeatExpireInterval). With the
// defaults it is 10m30s.
func DeadAfter(heartbeatInterval, recheckInterval time.Duration) time.Duration {
	return 2*recheckInterval + 10*heartbeatInterval
}
