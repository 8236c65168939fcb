package tracker

import (
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// The Tracker's storage. Node names are interned to small ids; every
// (slow node, reporter) entry lives once, with its statistics, in its slow
// node's reportedBy list, and is indexed from its reporter's reports list.
// Each side holds the other's position, so an entry is added or removed in
// constant time, and a reporter's earlier report is dropped without looking
// at anything it did not report.
//
// All entries of one reporter share one arrival time, because a report
// replaces everything its reporter said before; the time is kept once per
// reporter, in the dense t.arrivals. A read that refilters a slow node thus
// walks its reportedBy list and t.arrivals, not the reporters' records.
//
// A DataNode mostly reports the same slow peers again, in the same order.
// Replacing a report therefore first updates in place the entries that
// repeat the earlier report position by position, and looks names up in
// the earlier report before the name table.

// node is what the Tracker holds for one node id, as a reporter and as a
// slow node. Its arrival, as a reporter, is t.arrivals[id].
type node struct {
	name string
	live bool // false once released to the free list

	// As a reporter: where the entries of its current report are.
	reports []entryRef

	// As a slow node: the entries of the nodes that report it, and a
	// summary of them cached for reads.
	reportedBy []entry
	sum        summary
	// lastReport is the Report call (Tracker.reportCount) that last gave
	// this node an entry, at index lastReportRef of that reporter's
	// reports list: how a peer named twice in one report is found.
	lastReport    uint64
	lastReportRef uint32
}

// entryRef locates one entry from its reporter's side.
type entryRef struct {
	slow  uint32 // id of the slow node
	index uint32 // index of the entry in nodes[slow].reportedBy
}

// entry is what one reporter said of the slow node whose reportedBy list
// holds it. The four statistics are kept exactly as reported, in
// milliseconds.
type entry struct {
	reporter     uint32 // id of the reporting node
	refIndex     uint32 // index of this entry's entryRef in nodes[reporter].reports
	latencyMs    float64
	medianMs     float64
	madMs        float64
	upperLimitMs float64
}

func (e *entry) set(p *reports.SlowPeer) {
	e.latencyMs, e.medianMs, e.madMs, e.upperLimitMs = p.LatencyMs, p.MedianMs, p.MADMs, p.UpperLimitMs
}

// replaceLocked makes peers, received at arrival, the whole report of
// reporter r (named reporter), keeping the summaries of the slow nodes it
// touches up to date. The caller holds t.mu.
func (t *Tracker) replaceLocked(r uint32, arrival instant, reporter string, peers []reports.SlowPeer) {
	t.reportCount++
	rep := &t.nodes[r]
	// Keep the entries that repeat the earlier report, position by position.
	// The earlier report names neither reporter nor any node twice, so
	// neither can be among them.
	kept := 0
	for kept < len(rep.reports) && kept < len(peers) {
		ref, p := rep.reports[kept], &peers[kept]
		slow := &t.nodes[ref.slow]
		if slow.name != p.Node {
			break
		}
		e := &slow.reportedBy[ref.index]
		slow.sum.replaced(t.arrivals[r], e.latencyMs, arrival, p.LatencyMs)
		e.set(p)
		slow.lastReport, slow.lastReportRef = t.reportCount, uint32(kept)
		kept++
	}
	t.dropLocked(r, kept)
	t.arrivals[r] = arrival
	if kept == 0 {
		rep.reports = emptiedFor(rep.reports, len(peers))
	}
	for i := kept; i < len(peers); i++ {
		p := &peers[i]
		if p.Node == reporter {
			continue
		}
		var s uint32
		if i < len(t.touched) && t.nodes[t.touched[i]].name == p.Node {
			s = t.touched[i] // still interned: releases wait until the end
		} else {
			s = t.intern(p.Node)
		}
		t.linkLocked(r, s, p)
	}
	// Release only now, so that a slow node reported again keeps its id.
	for _, s := range t.touched {
		t.releaseIfUnused(s)
	}
	t.releaseIfUnused(r)
}

// shrinkAbove is the capacity above which a list that became at most a
// quarter full is reallocated, so that memory follows the live reports.
const shrinkAbove = 16

// intern returns the id of name, giving it one if it has none. It may grow
// t.nodes, so pointers into it do not survive a call. The caller holds t.mu.
func (t *Tracker) intern(name string) uint32 {
	if id, ok := t.ids[name]; ok {
		return id
	}
	name = strings.Clone(name) // do not pin the caller's buffer
	var id uint32
	if k := len(t.free); k > 0 {
		id = t.free[k-1]
		t.free = t.free[:k-1]
	} else {
		id = uint32(len(t.nodes))
		t.nodes = append(t.nodes, node{})
		t.arrivals = append(t.arrivals, 0)
	}
	t.nodes[id] = node{name: name, live: true, sum: emptySummary}
	t.arrivals[id] = 0
	t.ids[name] = id
	return id
}

// releaseIfUnused frees id when it neither reports nor is reported. A
// released id may be passed again; it is then left alone. The caller holds
// t.mu.
func (t *Tracker) releaseIfUnused(id uint32) {
	n := &t.nodes[id]
	if !n.live || len(n.reports) > 0 || len(n.reportedBy) > 0 {
		return
	}
	delete(t.ids, n.name)
	*n = node{}
	t.free = append(t.free, id)
}

// linkLocked adds the entry "reporter r says slow node s is slow, with the
// statistics of p" to r's report, or, when this Report call already gave r
// an entry on s, overwrites its statistics: the last naming wins. The caller
// holds t.mu, has set r's arrival and has filtered out s == r.
func (t *Tracker) linkLocked(r, s uint32, p *reports.SlowPeer) {
	slow, rep := &t.nodes[s], &t.nodes[r]
	arrival := t.arrivals[r]
	if slow.lastReport == t.reportCount {
		e := &slow.reportedBy[rep.reports[slow.lastReportRef].index]
		slow.sum.replaced(arrival, e.latencyMs, arrival, p.LatencyMs)
		e.set(p)
		return
	}
	slow.sum.added(arrival, p.LatencyMs)
	if len(slow.reportedBy) == 0 {
		t.slow++
	}
	slow.lastReport, slow.lastReportRef = t.reportCount, uint32(len(rep.reports))
	if len(slow.reportedBy) == cap(slow.reportedBy) {
		slow.reportedBy = grown(slow.reportedBy)
	}
	slow.reportedBy = append(slow.reportedBy, entry{reporter: r, refIndex: uint32(len(rep.reports))})
	slow.reportedBy[len(slow.reportedBy)-1].set(p)
	rep.reports = append(rep.reports, entryRef{slow: s, index: uint32(len(slow.reportedBy) - 1)})
	t.entries++
}

// dropLocked removes the entries of reporter r from index from on, and
// lists in t.touched the slow nodes of all its entries, in order, for the
// caller to release once it no longer needs their ids. t.touched keeps its
// capacity: at most the longest report seen. The caller holds t.mu.
func (t *Tracker) dropLocked(r uint32, from int) {
	rep := &t.nodes[r]
	t.touched = t.touched[:0]
	for i, ref := range rep.reports {
		t.touched = append(t.touched, ref.slow)
		if i >= from {
			t.unlinkLocked(ref.slow, ref.index, t.arrivals[r])
		}
	}
	t.entries -= len(rep.reports) - from
	rep.reports = rep.reports[:from]
}

// unlinkLocked removes the entry at position at of slow node s's
// reportedBy list, whose reporter's report arrived at arrival, moving the
// last entry into its place and telling that one's reporter where it went.
func (t *Tracker) unlinkLocked(s, at uint32, arrival instant) {
	slow := &t.nodes[s]
	slow.sum.removed(arrival, slow.reportedBy[at].latencyMs)
	last := uint32(len(slow.reportedBy) - 1)
	if at != last {
		moved := slow.reportedBy[last]
		slow.reportedBy[at] = moved
		t.nodes[moved.reporter].reports[moved.refIndex].index = at
	}
	slow.reportedBy = shrunk(slow.reportedBy[:last])
	if last == 0 {
		t.slow--
	}
}

// emptiedFor returns refs emptied, with room for n and not much more.
func emptiedFor(refs []entryRef, n int) []entryRef {
	if cap(refs) < n || (cap(refs) > shrinkAbove && n <= cap(refs)/4) {
		return make([]entryRef, 0, n)
	}
	return refs[:0]
}

// grown returns list with room for about an eighth more: reportedBy lists
// are long lived and hold 40-byte entries, so append's doubling would leave
// a quarter of their memory unused on average.
func grown(list []entry) []entry {
	return append(make([]entry, 0, cap(list)+cap(list)/8+2), list...)
}

// shrunk returns list, reallocated smaller when it uses at most a quarter
// of a large capacity.
func shrunk(list []entry) []entry {
	if cap(list) > shrinkAbove && len(list) <= cap(list)/4 {
		return append(make([]entry, 0, 2*len(list)), list...)
	}
	return list
}
