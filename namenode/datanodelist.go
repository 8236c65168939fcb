package namenode

import (
	"slices"
	"time"
)

// The DataNode table read in order: /v1/datanodes pages, /jmx LiveNodes,
// the dashboard and the state file list it all, by id.

// List returns every node with its state at now, sorted by node id.
func (t *DataNodes) List(now time.Time) []DataNode {
	page, _ := t.Page(now, "", 0)
	return page
}

// Page returns, sorted by node id, the first limit nodes whose id sorts
// after the id after ("" for the first page), with their state at now, and
// whether more follow. limit <= 0 means no bound.
func (t *DataNodes) Page(now time.Time, after string, limit int) (page []DataNode, more bool) {
	t.mu.RLock()
	ids := t.sortedLocked()
	from, _ := slices.BinarySearch(ids, after)
	if from < len(ids) && ids[from] == after {
		from++
	}
	n := len(ids) - from
	if limit > 0 && n > limit {
		n, more = limit, true
	}
	page = make([]DataNode, n)
	for i, id := range ids[from : from+n] {
		r := t.nodes[id]
		r.mu.Lock()
		page[i] = DataNode{Node: id, State: Live, LastHeartbeat: r.last, HTTPAddress: r.httpAddr}
		r.mu.Unlock()
	}
	t.mu.RUnlock()
	for i := range page {
		if t.isDead(now, page[i].LastHeartbeat) {
			page[i].State = Dead
		}
	}
	return page, more
}

// sortedLocked returns the ids of the nodes, sorted. The caller holds mu
// for reading.
func (t *DataNodes) sortedLocked() []string {
	if p := t.sorted.Load(); p != nil {
		return *p
	}
	ids := make([]string, 0, len(t.nodes))
	for id := range t.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	t.sorted.Store(&ids)
	return ids
}
