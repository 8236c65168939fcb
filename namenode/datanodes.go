package namenode

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// State is whether a DataNode is live or dead.
type State string

// The states of a DataNode, as /v1/datanodes writes them.
const (
	Live State = "live"
	Dead State = "dead"
)

// DataNode is one row of the DataNode table.
type DataNode struct {
	// Node is the DataNode's id, "host:port".
	Node string
	// State is Live or Dead at the time the row was read.
	State State
	// LastHeartbeat is when its newest heartbeat arrived.
	LastHeartbeat time.Time
	// HTTPAddress is the node's HTTP port as its heartbeats last
	// announced it, "" for none.
	HTTPAddress string
}

// DataNodes is the DataNode table: every node that sent a heartbeat
// and when it last did. A node is dead once it has been silent for longer
// than the expiry (see DeadAfter), as DatanodeManager.isDatanodeDead
// decides; like Hadoop, the table keeps dead nodes listed, until Forget
// drops them. It holds at most its maximum number of nodes.
//
// Time is passed in. DataNodes is safe for concurrent use; its zero value
// is not usable, use NewDataNodes.
type DataNodes struct {
	deadAfter time.Duration
	max       int // 0: no bound

	mu    sync.Mutex
	nodes map[string]*dataNode
}

type dataNode struct {
	last     time.Time
	httpAddr string // as the newest heartbeat announced it
	// reportedDead is set once Check has returned the node as dead, and
	// cleared by its next heartbeat.
	reportedDead bool
}

// NewDataNodes returns an empty table in which a node is dead after
// deadAfter without a heartbeat, and that holds at most maxNodes nodes (0:
// no bound). It panics if deadAfter is not positive or maxNodes negative.
func NewDataNodes(deadAfter time.Duration, maxNodes int) *DataNodes {
	if deadAfter <= 0 || maxNodes < 0 {
		panic("BUG: namenode.NewDataNodes: deadAfter must be positive and maxNodes not negative")
	}
	return &DataNodes{deadAfter: deadAfter, max: maxNodes, nodes: make(map[string]*dataNode)}
}

// ErrTableFull is the error of a heartbeat from a node the table does not
// know once it holds its maximum number of nodes.
var ErrTableFull = errors.New("the DataNode table is full")

// isDead is Hadoop's rule: lastUpdate < now − heartbeatExpireInterval.
func (t *DataNodes) isDead(now, last time.Time) bool {
	return now.Sub(last) > t.deadAfter
}

// Heartbeat records a heartbeat from node at now, registering the node if
// it is new. It reports whether the node was unknown or dead before. A new
// node when the table is full is not registered: the error is
// ErrTableFull.
func (t *DataNodes) Heartbeat(now time.Time, node string) (revived bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[node]
	if !ok {
		if t.max > 0 && len(t.nodes) >= t.max {
			return false, ErrTableFull
		}
		t.nodes[strings.Clone(node)] = &dataNode{last: now}
		return true, nil
	}
	revived = t.isDead(now, n.last)
	if now.After(n.last) {
		n.last = now
	}
	n.reportedDead = false
	return revived, nil
}

// Refresh records a heartbeat from node at now, with the HTTP address it
// announced ("" for none), if the table knows node; it reports whether
// node was dead before, and whether the table knows it (when it does
// not, nothing changes: register it with Heartbeat). It is Heartbeat and
// SetHTTPAddress of a known node in one step.
func (t *DataNodes) Refresh(now time.Time, node, httpAddr string) (revived, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[node]
	if !ok {
		return false, false
	}
	revived = t.isDead(now, n.last)
	if now.After(n.last) {
		n.last = now
	}
	n.reportedDead = false
	n.httpAddr = httpAddr
	return revived, true
}

// Admits reports whether a heartbeat from node would be registered: the
// node is known, or the table has room.
func (t *DataNodes) Admits(node string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.nodes[node]
	return ok || t.max == 0 || len(t.nodes) < t.max
}

// Forget drops every node silent for longer than after at now, and returns
// how many it dropped. Hadoop lists dead nodes until a restart; here a node
// gone for good leaves, and so does every name made up by a sender.
func (t *DataNodes) Forget(now time.Time, after time.Duration) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for id, d := range t.nodes {
		if now.Sub(d.last) > after {
			delete(t.nodes, id)
			n++
		}
	}
	return n
}

// Counts returns how many nodes are live and how many dead at now.
func (t *DataNodes) Counts(now time.Time) (live, dead int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range t.nodes {
		if t.isDead(now, n.last) {
			dead++
		} else {
			live++
		}
	}
	return live, dead
}

// SetHTTPAddress records the HTTP address a heartbeat of node announced
// ("" for none). A node that never sent a heartbeat is left unknown.
func (t *DataNodes) SetHTTPAddress(node, addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.nodes[node]; ok {
		n.httpAddr = addr
	}
}

// Stale returns how many live nodes are stale at now: silent for at least
// staleAfter, as DatanodeInfo.isStale decides (now − lastUpdate ≥ the
// stale interval). Dead nodes are not counted, as HeartbeatManager counts
// only the nodes it still tracks.
func (t *DataNodes) Stale(now time.Time, staleAfter time.Duration) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	stale := 0
	for _, n := range t.nodes {
		if !t.isDead(now, n.last) && now.Sub(n.last) >= staleAfter {
			stale++
		}
	}
	return stale
}

// State returns the state of node at now, and false when the node never
// sent a heartbeat.
func (t *DataNodes) State(now time.Time, node string) (State, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[node]
	if !ok {
		return "", false
	}
	if t.isDead(now, n.last) {
		return Dead, true
	}
	return Live, true
}

// List returns every node with its state at now, sorted by node id.
func (t *DataNodes) List(now time.Time) []DataNode {
	page, _ := t.Page(now, "", 0)
	return page
}

// Page returns, sorted by node id, the first limit nodes whose id sorts
// after the id after ("" for the first page), with their state at now, and
// whether more follow. limit <= 0 means no bound.
func (t *DataNodes) Page(now time.Time, after string, limit int) (page []DataNode, more bool) {
	t.mu.Lock()
	out := make([]DataNode, 0, len(t.nodes))
	for id, n := range t.nodes {
		if id > after {
			out = append(out, DataNode{Node: id, State: Live, LastHeartbeat: n.last, HTTPAddress: n.httpAddr})
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b DataNode) int { return strings.Compare(a.Node, b.Node) })
	if limit > 0 && len(out) > limit {
		out, more = out[:limit:limit], true
	}
	for i := range out {
		if t.isDead(now, out[i].LastHeartbeat) {
			out[i].State = Dead
		}
	}
	return out, more
}

// Check returns, sorted, the nodes found dead at now that no earlier Check
// returned since their last heartbeat: each death is reported once.
func (t *DataNodes) Check(now time.Time) []string {
	var died []string
	t.mu.Lock()
	for id, n := range t.nodes {
		if !n.reportedDead && t.isDead(now, n.last) {
			n.reportedDead = true
			died = append(died, id)
		}
	}
	t.mu.Unlock()
	slices.Sort(died)
	return died
}

// Len returns the number of nodes in the table, live or dead.
func (t *DataNodes) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.nodes)
}
