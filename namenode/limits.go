package namenode

import (
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The keys that bound what the service holds and serves, whatever its
// clients send (with or without a token), with their defaults. Hadoop has
// no such keys; they are slowpeer's, named in Hadoop's style.
const (
	// MaxDataNodesKey bounds the DataNode table. A heartbeat from a node
	// the table does not know, once it is full, is refused with 429.
	MaxDataNodesKey = "slowpeer.namenode.max.datanodes"
	// DefaultMaxDataNodes is above the largest HDFS clusters run (about
	// 10 000 DataNodes behind one NameNode, a few tens of thousands in
	// federated ones) and costs about 5 MB when full.
	DefaultMaxDataNodes = 50000

	// MaxTrackerEntriesKey bounds the (slow node, reporter) entries of the
	// slow-peer tracker. A report that would pass it is refused with 429.
	MaxTrackerEntriesKey = "slowpeer.namenode.max.tracker.entries"
	// DefaultMaxTrackerEntries is 20 slow peers for each of
	// DefaultMaxDataNodes DataNodes (a DataNode reports the few outliers
	// among its downstream peers; 20 at once is a rack gone bad), about
	// 63 MB when full.
	DefaultMaxTrackerEntries = 1000000

	// MaxSlowNodesKey bounds the distinct nodes reported slow. A report
	// that would pass it is refused with 429.
	MaxSlowNodesKey = "slowpeer.namenode.max.slow.nodes"
	// DefaultMaxSlowNodes is a fifth of DefaultMaxDataNodes: a cluster
	// with more slow nodes than that has a detector (or senders) gone
	// wrong, and reads show the top few anyway.
	DefaultMaxSlowNodes = 10000

	// MaxPeerLatenciesKey bounds a heartbeat's peerLatencies: one with
	// more is refused with 429, and the diagnosis keeps at most this many
	// cells per reporter. Agents send at most this many (the same key).
	MaxPeerLatenciesKey = reports.MaxPeerLatenciesKey
	// DefaultMaxPeerLatencies is the agents' default: 64 cells of 24
	// bytes a reporter.
	DefaultMaxPeerLatencies = reports.DefaultMaxPeerLatencies

	// MaxDiagnosisReportersKey bounds the rows of the diagnosis matrix.
	// Only a DataNode live before its report takes a row; when every row
	// is taken, a reporter live for longer than the newest holder takes
	// that one's row and any other report carrying peerLatencies is
	// refused with 429 (seats.go).
	MaxDiagnosisReportersKey = "slowpeer.max.diagnosis.reporters"
	// DefaultMaxDiagnosisReporters covers the largest clusters behind one
	// NameNode (about 10 000 DataNodes); full, with 64 peers each, its
	// cells take 15 MB and a fit about 0.2 s.
	DefaultMaxDiagnosisReporters = 10000

	// MetricsSlowNodesKey is how many of the top slow nodes get a
	// slowpeer_slow_node_reporters{node} series. The other slow nodes are
	// counted in slowpeer_slow_nodes only, so that made-up names cannot
	// grow the number of series.
	MetricsSlowNodesKey = "slowpeer.namenode.metrics.slow.nodes"
	// DefaultMetricsSlowNodes covers a rack failure (40 nodes) with room:
	// 50 series, about 4 KB of /metrics.
	DefaultMetricsSlowNodes = 50

	// DataNodeForgetAfterKey is how long a dead DataNode stays in the
	// table (and /v1/datanodes) after its last heartbeat before it is
	// forgotten. A bare number is milliseconds.
	DataNodeForgetAfterKey = "slowpeer.namenode.datanode.forget.after"
	// DefaultDataNodeForgetAfter keeps a node that died overnight listed
	// the next morning. Hadoop keeps dead nodes until a restart.
	DefaultDataNodeForgetAfter = 24 * time.Hour

	// MaxConnectionsKey caps the connections served at once. Over it, the
	// connection idle longest outside a request (keep-alive, or still
	// sending its header) is closed to make room; when every connection
	// is inside a request, new ones wait in the listen backlog.
	MaxConnectionsKey = "slowpeer.namenode.max.connections"
	// DefaultMaxConnections is one keep-alive connection for each of
	// 16 000 DataNodes, plus room for readers: every agent holds one to
	// each replica and heartbeats every few seconds, so a cap below the
	// number of agents makes the service close connections that are about
	// to be used (at 10 000 agents and a cap of 4096, 23 % of the
	// heartbeats failed; BENCHMARKS.md): raise it for a larger cluster.
	// Full, it costs about 30 KB a connection (480 MB, apart from
	// MemoryBudget's items). Serve lowers the
	// cap to what the process may open (openFilesCap).
	DefaultMaxConnections = 16384

	// HeaderReadTimeoutKey bounds the time a client has to send a
	// request's header. A bare number is milliseconds.
	HeaderReadTimeoutKey = "slowpeer.namenode.header.read.timeout"
	// DefaultHeaderReadTimeout is ample for a header of a few hundred
	// bytes, and short enough that connections dribbling theirs are cut
	// off quickly.
	DefaultHeaderReadTimeout = 5 * time.Second

	// BodyReadTimeoutKey bounds the time a client has to send a request's
	// body once its header is in: the whole request must arrive within
	// the header's and the body's timeouts. A bare number is milliseconds.
	BodyReadTimeoutKey = "slowpeer.namenode.body.read.timeout"
	// DefaultBodyReadTimeout is ample for the largest heartbeat (1 MiB)
	// at 200 KB/s, and short enough that connections dribbling a body
	// are cut off quickly.
	DefaultBodyReadTimeout = 5 * time.Second
)

// Bounds of the limits' values.
const (
	maxLimit       = 100_000_000
	maxConnections = 1 << 20
	// maxDiagnosisReporters bounds the key; maxDiagnosisCells the
	// product of rows and cells per row, as the matrix counts cells in
	// int32 (diagnosis.Config.Validate).
	maxDiagnosisReporters = 1_000_000
	maxDiagnosisCells     = 1 << 28
)

// validateLimits returns an error naming the first broken rule of the
// limits, or nil.
func (c Config) validateLimits() error {
	counts := []struct {
		key    string
		n, min int
		max    int
	}{
		{MaxDataNodesKey, c.MaxDataNodes, 1, maxLimit},
		{MaxTrackerEntriesKey, c.MaxTrackerEntries, 1, maxLimit},
		{MaxSlowNodesKey, c.MaxSlowNodes, 1, maxLimit},
		{MaxPeerLatenciesKey, c.MaxPeerLatencies, 1, reports.MaxPeerLatencies},
		{MaxDiagnosisReportersKey, c.MaxDiagnosisReporters, 1, maxDiagnosisReporters},
		{MetricsSlowNodesKey, c.MetricsSlowNodes, 0, MaxTop},
		{MaxConnectionsKey, c.MaxConnections, 1, maxConnections},
	}
	for _, f := range counts {
		if f.n < f.min || f.n > f.max {
			return fmt.Errorf("%s must be between %d and %d, got %d", f.key, f.min, f.max, f.n)
		}
	}
	if c.MaxDiagnosisReporters > maxDiagnosisCells/max(c.MaxPeerLatencies, 1) {
		return fmt.Errorf("%s × %s must be at most %d, got %d × %d", MaxDiagnosisReportersKey, MaxPeerLatenciesKey,
			maxDiagnosisCells, c.MaxDiagnosisReporters, c.MaxPeerLatencies)
	}
	if c.HeaderReadTimeout <= 0 || c.HeaderReadTimeout > maxInterval {
		return fmt.Errorf("%s must be more than zero and at most %v, got %v", HeaderReadTimeoutKey, maxInterval, c.HeaderReadTimeout)
	}
	if c.BodyReadTimeout <= 0 || c.BodyReadTimeout > maxInterval {
		return fmt.Errorf("%s must be more than zero and at most %v, got %v", BodyReadTimeoutKey, maxInterval, c.BodyReadTimeout)
	}
	if c.DataNodeForgetAfter > maxInterval {
		return fmt.Errorf("%s must be at most %v, got %v", DataNodeForgetAfterKey, maxInterval, c.DataNodeForgetAfter)
	}
	if dead := c.DeadAfter(); c.DataNodeForgetAfter <= dead {
		return fmt.Errorf("%s (%v) must be longer than the dead-node expiry (%v)", DataNodeForgetAfterKey, c.DataNodeForgetAfter, dead)
	}
	return nil
}
