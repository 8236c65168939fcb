package namenode

import (
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The Tracker's storage. Node names are interned to small ids; every
// (slow node, reporter) entry lives once, in its reporter's sent list, and is
// indexed from its slow node's by list. Each side holds the other's position,
// so an entry is added or removed in constant time, and a reporter's earlier
// report is dropped without looking at anything it did not report.
//
// All entries of one reporter share one arrival time, because a report
// replaces everything its reporter said before; the time is kept once per
// reporter, not per entry.

// node is what the Tracker holds for one node id, as a reporter and as a
// slow node.
type node struct {
	name string
	live bool // false once released to the free list

	// As a reporter: its current report and when it arrived.
	arrival time.Time
	sent    []sent

	// As a slow node: who reports it, and a summary cached for reads.
	by  []by
	sum summary
}

// sent is one entry: what a reporter said of one slow node. The four
// statistics are kept exactly as reported, in milliseconds.
type sent struct {
	slow         uint32 // id of the slow node
	byAt         uint32 // index of this entry in nodes[slow].by
	latencyMs    float64
	medianMs     float64
	madMs        float64
	upperLimitMs float64
}

// by locates one entry from its slow node's side.
type by struct {
	reporter uint32 // id of the reporting node
	sentAt   uint32 // index of the entry in nodes[reporter].sent
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
	}
	t.nodes[id] = node{name: name, live: true}
	t.ids[name] = id
	return id
}

// releaseIfUnused frees id when it neither reports nor is reported. A
// released id may be passed again; it is then left alone. The caller holds
// t.mu.
func (t *Tracker) releaseIfUnused(id uint32) {
	n := &t.nodes[id]
	if !n.live || len(n.sent) > 0 || len(n.by) > 0 {
		return
	}
	delete(t.ids, n.name)
	*n = node{}
	t.free = append(t.free, id)
}

// linkLocked adds the entry "reporter r says p.Node is slow" to r's current
// report. The caller holds t.mu, has dropped r's earlier report and filtered
// out p.Node == r's name.
func (t *Tracker) linkLocked(r uint32, p *reports.SlowPeer) {
	s := t.intern(p.Node)
	sn, rn := &t.nodes[s], &t.nodes[r]
	sn.sum.ok = false
	if k := len(sn.by); k > 0 && sn.by[k-1].reporter == r {
		// p.Node came twice in this report: r's entry on s is the last one
		// added to s, as nothing else is added to s meanwhile. Last wins.
		e := &rn.sent[sn.by[k-1].sentAt]
		e.latencyMs, e.medianMs, e.madMs, e.upperLimitMs = p.LatencyMs, p.MedianMs, p.MADMs, p.UpperLimitMs
		return
	}
	sn.by = append(sn.by, by{reporter: r, sentAt: uint32(len(rn.sent))})
	rn.sent = append(rn.sent, sent{
		slow:         s,
		byAt:         uint32(len(sn.by) - 1),
		latencyMs:    p.LatencyMs,
		medianMs:     p.MedianMs,
		madMs:        p.MADMs,
		upperLimitMs: p.UpperLimitMs,
	})
	t.entries++
}

// dropLocked removes every entry of reporter r and lists in t.touched the
// slow nodes it named, for the caller to release once it no longer needs
// their ids. t.touched keeps its capacity: at most the longest report seen.
// The caller holds t.mu.
func (t *Tracker) dropLocked(r uint32) {
	t.touched = t.touched[:0]
	rn := &t.nodes[r]
	for _, e := range rn.sent {
		t.unlinkLocked(e.slow, e.byAt)
		t.touched = append(t.touched, e.slow)
	}
	t.entries -= len(rn.sent)
	rn.sent = rn.sent[:0]
}

// unlinkLocked removes position at of slow node s's by list, moving the last
// one into its place and telling that one's reporter where it went.
func (t *Tracker) unlinkLocked(s, at uint32) {
	sn := &t.nodes[s]
	sn.sum.ok = false
	last := uint32(len(sn.by) - 1)
	if at != last {
		moved := sn.by[last]
		sn.by[at] = moved
		t.nodes[moved.reporter].sent[moved.sentAt].byAt = at
	}
	sn.by = shrunk(sn.by[:last])
}

// sized returns list emptied, with room for n entries and not much more.
func sized(list []sent, n int) []sent {
	if cap(list) < n || (cap(list) > shrinkAbove && n <= cap(list)/4) {
		return make([]sent, 0, n)
	}
	return list[:0]
}

// shrunk returns list, reallocated smaller when it uses at most a quarter
// of a large capacity.
func shrunk(list []by) []by {
	if cap(list) > shrinkAbove && len(list) <= cap(list)/4 {
		return append(make([]by, 0, 2*len(list)), list...)
	}
	return list
}
