package namenode

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// State is the state of a DataNode. The table knows Live and Dead; the
// Server also tells Stale and Excluded apart (StateOf).
type State string

// The states of a DataNode, as /v1/datanodes writes them.
const (
	Live State = "live"
	// Stale is a live DataNode silent for Config.StaleAfter.
	Stale State = "stale"
	Dead  State = "dead"
	// Excluded is a DataNode dfs.hosts.exclude names, live or dead.
	Excluded State = "excluded"
)

// DataNode is one row of the DataNode table.
type DataNode struct {
	// Node is the DataNode's id, "host:port".
	Node string
	// State is Live or Dead at the time the row was read (the table's
	// view; Server.StateOf tells Stale and Excluded too).
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
//
// A heartbeat of a known node, the hot path (thousands a second), takes
// the table's lock for reading only, and its row's lock: reads of the
// whole table (/jmx, /v1/datanodes, the dashboard, the state file), which
// hold the table's lock for reading while they copy 10 000 rows, never
// hold it up, nor do heartbeats hold each other up. The lock is taken for
// writing only to add or drop rows.
type DataNodes struct {
	deadAfter time.Duration
	max       int // 0: no bound

	// mu guards the map; held for writing, it guards every row too.
	mu    sync.RWMutex
	nodes map[string]*dataNode
	// sorted holds the ids of nodes sorted and their rows, nil when
	// stale: set with mu held for reading, cleared with it held for
	// writing, so that a set one matches the map.
	sorted atomic.Pointer[sortedRows]
}

// dataNode is a row. While the table's lock is held for reading, its
// fields are guarded by its own mu.
type dataNode struct {
	mu       sync.Mutex
	last     time.Time
	since    time.Time // the first heartbeat of its current live run
	httpAddr string    // as the newest heartbeat announced it
	// reportedDead is set once Check has returned the node as dead, and
	// cleared by its next heartbeat.
	reportedDead bool
}

// beat records a heartbeat at now in n; it reports whether n was dead
// before. The caller holds n.mu or the table's lock for writing.
func (t *DataNodes) beat(n *dataNode, now time.Time) (revived bool) {
	revived = t.isDead(now, n.last)
	if revived {
		n.since = now
	}
	if now.After(n.last) {
		n.last = now
	}
	n.reportedDead = false
	return revived
}

// lastOf returns when n's newest heartbeat arrived. The caller holds the
// table's lock for reading.
func lastOf(n *dataNode) time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.last
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
	t.mu.RLock()
	if n, ok := t.nodes[node]; ok {
		n.mu.Lock()
		revived = t.beat(n, now)
		n.mu.Unlock()
		t.mu.RUnlock()
		return revived, nil
	}
	t.mu.RUnlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[node]
	if !ok {
		if t.max > 0 && len(t.nodes) >= t.max {
			return false, ErrTableFull
		}
		t.nodes[strings.Clone(node)] = &dataNode{last: now, since: now}
		t.sorted.Store(nil)
		return true, nil
	}
	return t.beat(n, now), nil // came in between
}

// Refresh records a heartbeat from node at now, with the HTTP address it
// announced ("" for none), if the table knows node; it reports whether
// node was dead before, and whether the table knows it (when it does
// not, nothing changes: register it with Heartbeat). It is Heartbeat and
// SetHTTPAddress of a known node in one step.
func (t *DataNodes) Refresh(now time.Time, node, httpAddr string) (revived, known bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.nodes[node]
	if !ok {
		return false, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	revived = t.beat(n, now)
	n.httpAddr = httpAddr
	return revived, true
}

// LiveSince returns when node's current run of heartbeats began, and
// false when the node is unknown or dead at now: how long a reporter has
// been live is its trust in the diagnosis (seats.go).
func (t *DataNodes) LiveSince(now time.Time, node string) (time.Time, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.nodes[node]
	if !ok {
		return time.Time{}, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if t.isDead(now, n.last) {
		return time.Time{}, false
	}
	return n.since, true
}

// Admits reports whether a heartbeat from node would be registered: the
// node is known, or the table has room.
func (t *DataNodes) Admits(node string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	_, ok := t.nodes[node]
	return ok || t.max == 0 || len(t.nodes) < t.max
}

// Forget drops every node silent for longer than after at now, and returns
// those it dropped. Hadoop lists dead nodes until a restart; here a node
// gone for good leaves, and so does every name made up by a sender.
func (t *DataNodes) Forget(now time.Time, after time.Duration) []string {
	// Most calls find nobody to drop: look first with the lock held for
	// reading, so that heartbeats go on meanwhile.
	t.mu.RLock()
	var gone []string
	for id, d := range t.nodes {
		if now.Sub(lastOf(d)) > after {
			gone = append(gone, id)
		}
	}
	t.mu.RUnlock()
	if len(gone) == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	dropped := gone[:0]
	for _, id := range gone {
		if d, ok := t.nodes[id]; ok && now.Sub(d.last) > after { // unless it came back
			delete(t.nodes, id)
			dropped = append(dropped, id)
		}
	}
	t.sorted.Store(nil)
	return dropped
}

// Counts returns how many nodes are live and how many dead at now.
func (t *DataNodes) Counts(now time.Time) (live, dead int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, n := range t.nodes {
		if t.isDead(now, lastOf(n)) {
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
	t.mu.RLock()
	defer t.mu.RUnlock()
	if n, ok := t.nodes[node]; ok {
		n.mu.Lock()
		n.httpAddr = addr
		n.mu.Unlock()
	}
}

// Stale returns how many live nodes are stale at now: silent for at least
// staleAfter, as DatanodeInfo.isStale decides (now − lastUpdate ≥ the
// stale interval). Dead nodes are not counted, as HeartbeatManager counts
// only the nodes it still tracks.
func (t *DataNodes) Stale(now time.Time, staleAfter time.Duration) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	stale := 0
	for _, n := range t.nodes {
		if last := lastOf(n); !t.isDead(now, last) && now.Sub(last) >= staleAfter {
			stale++
		}
	}
	return stale
}

// State returns the state of node at now, and false when the node never
// sent a heartbeat.
func (t *DataNodes) State(now time.Time, node string) (State, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.nodes[node]
	if !ok {
		return "", false
	}
	if t.isDead(now, lastOf(n)) {
		return Dead, true
	}
	return Live, true
}

// Check returns, sorted, the nodes found dead at now that no earlier Check
// returned since their last heartbeat: each death is reported once.
func (t *DataNodes) Check(now time.Time) []string {
	var died []string
	t.mu.RLock()
	for id, n := range t.nodes {
		n.mu.Lock()
		if !n.reportedDead && t.isDead(now, n.last) {
			n.reportedDead = true
			died = append(died, id)
		}
		n.mu.Unlock()
	}
	t.mu.RUnlock()
	slices.Sort(died)
	return died
}

// Unknown returns the nodes of names that the table does not list, live
// or dead, in their order; nil when it lists them all. One read lock for
// all of them: a heartbeat names a dozen.
func (t *DataNodes) Unknown(names iter.Seq[string]) []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []string
	for n := range names {
		if _, ok := t.nodes[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// Len returns the number of nodes in the table, live or dead.
func (t *DataNodes) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.nodes)
}

// Remove drops node from the table and reports whether it was there.
func (t *DataNodes) Remove(node string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.nodes[node]; !ok {
		return false
	}
	delete(t.nodes, node)
	t.sorted.Store(nil)
	return true
}

// Get returns node's row with its state at now, and false when the table
// does not know it.
func (t *DataNodes) Get(now time.Time, node string) (DataNode, bool) {
	t.mu.RLock()
	n, ok := t.nodes[node]
	if !ok {
		t.mu.RUnlock()
		return DataNode{}, false
	}
	n.mu.Lock()
	d := DataNode{Node: node, State: Live, LastHeartbeat: n.last, HTTPAddress: n.httpAddr}
	n.mu.Unlock()
	t.mu.RUnlock()
	if t.isDead(now, d.LastHeartbeat) {
		d.State = Dead
	}
	return d, true
}

// CountsExcept returns how many nodes are live and how many dead at now
// among those for which except is false, and how many it is true for.
func (t *DataNodes) CountsExcept(now time.Time, except func(node string) bool) (live, dead, excepted int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for id, n := range t.nodes {
		switch {
		case except(id):
			excepted++
		case t.isDead(now, lastOf(n)):
			dead++
		default:
			live++
		}
	}
	return live, dead, excepted
}
