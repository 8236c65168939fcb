package dashboard

import (
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Source gives the dashboard what it shows. Snapshot is called by Run
// every Config.Interval and by every page request, possibly at once: it
// must be safe for concurrent use and quick (in-memory reads, no I/O).
// Time is passed in.
type Source interface {
	Snapshot(now time.Time) View
}

// SourceFunc adapts a function to Source.
type SourceFunc func(now time.Time) View

// Snapshot returns f(now).
func (f SourceFunc) Snapshot(now time.Time) View { return f(now) }

// View is everything the page shows at one time. The pointer fields are
// optional parts: nil means the service does not have that part, and the
// page says so, while a non-nil part with no rows is shown empty.
type View struct {
	// SlowSet is what the service decided (what alerts fire on and new
	// work avoids), apart from the raw reports of SlowNodes; nil without
	// one.
	SlowSet *SlowSet
	// SlowNodes are the nodes the slow-peer reports name now, Hadoop's
	// raw view, most reporters first.
	SlowNodes []SlowNode
	// Diagnosis is what the service found of the slow nodes (inbound,
	// outbound, link, rack); nil without a diagnosis.
	Diagnosis *Diagnosis
	// Matrix is the reporter × peer latency matrix; nil without one, and
	// the heatmap is then drawn from the latencies in SlowNodes' reports.
	// A Source may give the same *Matrix again while it has not changed
	// (it must not change it then): the heatmap is drawn once for it.
	Matrix *Matrix
	// DataNodes are every DataNode the service knows, sorted by id.
	DataNodes []DataNode
	// HiveServers are the HiveServers and Kyuubi servers the picker
	// knows; nil without a picker.
	HiveServers *HiveServers
	// Cluster is the service's replicas and their leader; nil when the
	// service is not registered in a registry.
	Cluster *Cluster
	// Disks are the slow disks and the measured volumes (disks.go); nil
	// when the service takes no disks.
	Disks *Disks
	// Suspects are the fast path's suspicions (suspects.go); nil when
	// the service has no fast path.
	Suspects *Suspects
}

// SlowNode is one slow node and the valid reports that name it.
type SlowNode struct {
	// Node is its id, "host:port".
	Node string
	// Reporters are the valid reports on Node, as the tracker keeps them.
	Reporters []reports.Reporter
	// Since is when Node became slow; zero when the Source does not
	// know, and the dashboard then shows when it first saw Node slow.
	Since time.Time
}

// The kinds of a Finding, as GET /v1/slownodes writes them.
const (
	KindInbound  = "inbound"  // the node receives slowly: a slow receiver
	KindOutbound = "outbound" // the node sends slowly: a slow sender
	KindBoth     = "both"     // both directions: the host itself
	KindLink     = "link"     // only between Node and Peer
	KindRack     = "rack"     // every node of Rack
)

// Diagnosis is what the service found of the slow nodes.
type Diagnosis struct {
	// Findings are its findings, in the order to show them.
	Findings []Finding
}

// Finding is one diagnosed slow node, as an element of GET /v1/slownodes.
type Finding struct {
	// Node is the slow node's id.
	Node string
	// Kind is one of the Kind constants.
	Kind string
	// Peer is the other end, for KindLink.
	Peer string
	// Rack is the rack, for KindRack.
	Rack string
	// Reporters is how many nodes report the problem.
	Reporters int
	// LatencyMs is the latency seen, and MedianMs the median it is
	// compared with, in milliseconds.
	LatencyMs, MedianMs float64
}

// Matrix is the reporter × peer latency matrix: what each node measured
// of each peer it sends to (the heartbeats' peerLatencies).
type Matrix struct {
	// Latencies are its cells; a pair that is absent was not measured.
	Latencies []Latency
}

// Latency is one cell of the Matrix.
type Latency struct {
	// Reporter measured the latency of sending to Peer.
	Reporter, Peer string
	// LatencyMs is the average, in milliseconds.
	LatencyMs float64
}

// The states of a DataNode.
const (
	Live     = "live"
	Stale    = "stale" // live, but its last heartbeat is late
	Dead     = "dead"
	Excluded = "excluded" // in dfs.hosts.exclude: out of every decision
)

// DataNode is one row of the DataNode table.
type DataNode struct {
	// Node is its id, "host:port".
	Node string
	// State is Live, Stale, Dead or Excluded.
	State string
	// LastHeartbeat is when its newest heartbeat arrived.
	LastHeartbeat time.Time
	// HTTPAddress is its agent's HTTP port (/jmx, /metrics), "" for none.
	HTTPAddress string
}

// HiveServers are the servers the HiveServer picker knows and its pick.
type HiveServers struct {
	// Servers are the servers, sorted by name.
	Servers []HiveServer
	// Pick is the server a new connection goes to now; "" when none is
	// eligible.
	Pick string
}

// HiveServer is one HiveServer or Kyuubi server.
type HiveServer struct {
	// Server is its "host:port".
	Server string
	// Running is the number of its running statements.
	Running int
	// LoadSeconds is the expected remaining time of its running
	// statements, summed, in seconds.
	LoadSeconds float64
	// SlowHost is true when it runs on the host of a slow node: it gets
	// no new work.
	SlowHost bool
}

// Cluster is the replicas of the service, as GET /v1/cluster gives them.
type Cluster struct {
	// Self is this replica's advertised address.
	Self string
	// Leader is the leader's address; "" while there is none.
	Leader string
	// Replicas are every registered replica's address.
	Replicas []string
	// Registry is "zk" or "etcd".
	Registry string
}
