package diagnosis

import (
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// ConfirmReports is how many reports of the node that measures a
// direction of a link must find it slow, in a row, before the link counts
// for the slow set of links (LinkConfirmer).
//
// One report is not enough: when a pause of either end holds one or two
// of the few probe blocks a pair gets in the rolling windows' span (a
// remote pair gets one every 40 s or so), the pair's latency jumps 10 to
// 100 times for that report, and the fit cannot tell it from a bad link,
// since nothing else of either node is slow. But the windows span less
// than a report interval, so one pause spoils at most one report of the
// pair; two in a row need two pauses of the pair's ends in two report
// intervals, each holding half the pair's blocks. A bad link then enters
// at the diagnosis after its second slow report: within two report
// intervals of the fault, unless the fault began just before the first
// report, too late to move its blocks' median.
//
// Reports are counted, not minutes: a direction's cell changes only when
// its reporter reports, so a rule in minutes must wait a whole interval
// and a diagnosis on top (the one after the second report), or a single
// report seen by one diagnosis more than usual gets through.
const ConfirmReports = 2

// linkState follows one direction that the diagnosis finds slow.
type linkState struct {
	reports int       // reports of its reporter in a row that found it
	last    time.Time // arrival of the latest of them
	seen    bool      // found at the current diagnosis
	// held is the arrival of a later report of the reporter that did not
	// carry the pair at all (too few packets in the span): no news, which
	// neither counts nor breaks the streak.
	held time.Time
}

// LinkConfirmer turns the Link findings of successive diagnoses into the
// links that feed the slow set of links: those with a direction found
// slow in ConfirmReports reports in a row of the node that measures it.
// The service (package namenode) and the simulator (package simulate)
// both feed their slow set of links through one. Tell it every report
// applied to the matrix (Report), then, after each Diagnose, ask it which
// links are confirmed (Confirm). Pure: time is passed in. Not safe for
// concurrent use; the zero value is not usable, use NewLinkConfirmer.
type LinkConfirmer struct {
	minSamples int           // the diagnosis's: fewer packets are no cell
	validity   time.Duration // a held streak ends this long after its last report
	// dirs holds the directions followed: reporter → peer → state.
	dirs map[string]map[string]*linkState
}

// NewLinkConfirmer returns a LinkConfirmer for a diagnosis whose cells
// need minSamples packets (Config.MinSamples) and count for validity
// (Config.MaxAge, the report validity): a streak held by reports without
// the pair ends validity after the last report that found it slow.
func NewLinkConfirmer(minSamples int, validity time.Duration) *LinkConfirmer {
	return &LinkConfirmer{minSamples: minSamples, validity: validity, dirs: map[string]map[string]*linkState{}}
}

// Report notes a report of from, applied to the matrix, that arrived at
// with latencies (its peerLatencies): each direction from that node the
// confirmer follows is held if the report leaves its pair out or carries
// it on fewer than minSamples packets (no cell, so no news), and is judged
// by the next Confirm otherwise.
func (lc *LinkConfirmer) Report(from string, at time.Time, latencies []reports.PeerLatency) {
	followed := lc.dirs[from]
	if len(followed) == 0 {
		return
	}
	for to, st := range followed {
		i := slices.IndexFunc(latencies, func(l reports.PeerLatency) bool { return l.Node == to })
		if i < 0 || latencies[i].Samples < int64(lc.minSamples) {
			st.held = at
		}
	}
}

// Confirm takes the findings of the diagnosis at now and the arrival of
// every reporter's latest report applied (reported; a reporter left out
// has none), and returns the links confirmed, as slow-set counts of link
// entities (LinkEntity) with the directions confirmed (1 or 2), sorted by
// entity. A direction found slow counts one more report whenever its
// reporter's latest report is newer than the last that found it; one that
// is not found breaks its streak, unless the reporter's latest report
// held it and that streak's last report is younger than the validity.
func (lc *LinkConfirmer) Confirm(now time.Time, findings []Finding, reported map[string]time.Time) []reports.NodeCount {
	for _, followed := range lc.dirs {
		for _, st := range followed {
			st.seen = false
		}
	}
	for _, f := range findings {
		if f.Kind != Link {
			continue
		}
		lc.see(f.Node, f.Peer, reported[f.Node])
		if f.Reporters > 1 { // both directions were found: Peer → Node too
			lc.see(f.Peer, f.Node, reported[f.Peer])
		}
	}
	confirmed := map[string]int{}
	for from, followed := range lc.dirs {
		for to, st := range followed {
			hold := st.held.Equal(reported[from]) && now.Sub(st.last) < lc.validity
			if !st.seen && !hold { // the streak is broken
				delete(followed, to)
				continue
			}
			if st.seen && st.reports >= ConfirmReports {
				confirmed[LinkEntity(from, to)]++
			}
		}
		if len(followed) == 0 {
			delete(lc.dirs, from)
		}
	}
	var out []reports.NodeCount
	for e, n := range confirmed {
		out = append(out, reports.NodeCount{Node: e, Reporters: n})
	}
	slices.SortFunc(out, func(a, b reports.NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// see notes that from → to is found slow now, under from's latest
// report, which arrived at.
func (lc *LinkConfirmer) see(from, to string, at time.Time) {
	followed := lc.dirs[from]
	if followed == nil {
		followed = map[string]*linkState{}
		lc.dirs[from] = followed
	}
	st := followed[to]
	switch {
	case st == nil:
		followed[to] = &linkState{reports: 1, last: at, seen: true}
		return
	case at.After(st.last):
		st.reports++
		st.last = at
	}
	st.seen = true
}
