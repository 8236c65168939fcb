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
	sorted := t.sortedLocked()
	ids := sorted.ids
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
		r := sorted.rows[from+i]
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

// sortedRows are the table's ids, sorted, and the row of each: Page
// walks them instead of sorting 10 000 ids, or looking each up in the map
// (half the time of listing 10 000 nodes went to the map's cache misses).
type sortedRows struct {
	ids  []string
	rows []*dataNode
}

// sortedLocked returns the ids of the nodes, sorted, and their rows. The
// caller holds mu for reading.
func (t *DataNodes) sortedLocked() *sortedRows {
	if p := t.sorted.Load(); p != nil {
		return p
	}
	s := &sortedRows{ids: make([]string, 0, len(t.nodes)), rows: make([]*dataNode, len(t.nodes))}
	for id := range t.nodes {
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
	for i, id := range s.ids {
		s.rows[i] = t.nodes[id]
	}
	t.sorted.Store(s)
	return s
}
