package tracker

// Forget deletes everything the Tracker holds of node: its own report, as
// a reporter, and every entry of another reporter that names it slow. It
// returns how many entries it deleted. An operator forgets a node that is
// gone for good (or a name that never was a node), where waiting for its
// reports to expire would keep it on the reports for 3 report intervals.
// A later report that names node again is taken as usual.
func (t *Tracker) Forget(node string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[node]
	if !ok {
		return 0
	}
	n := &t.nodes[id]
	deleted := len(n.reports) + len(n.reportedBy)
	// As a reporter: its report goes.
	t.dropLocked(id, 0)
	for _, s := range t.touched {
		t.releaseIfUnused(s)
	}
	// As a slow node: each entry goes from its reporter's report too.
	for len(t.nodes[id].reportedBy) > 0 {
		slow := &t.nodes[id]
		last := len(slow.reportedBy) - 1
		e := slow.reportedBy[last]
		t.unlinkRefLocked(e.reporter, e.refIndex)
		t.unlinkLocked(id, uint32(last), t.arrivals[e.reporter])
		t.entries--
		t.releaseIfUnused(e.reporter)
	}
	t.releaseIfUnused(id)
	return deleted
}

// unlinkRefLocked removes the entryRef at position at of reporter r's
// report, moving the last one into its place and telling its entry where
// it went. The caller holds t.mu and removes the entry itself.
func (t *Tracker) unlinkRefLocked(r, at uint32) {
	rep := &t.nodes[r]
	last := uint32(len(rep.reports) - 1)
	if at != last {
		moved := rep.reports[last]
		rep.reports[at] = moved
		t.nodes[moved.slow].reportedBy[moved.index].refIndex = at
	}
	rep.reports = rep.reports[:last]
}
