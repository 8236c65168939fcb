package simulate

import (
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/tracker"
)

// confirmReports is how many reports in a row of the node that measures
// a direction of a link must find it slow before the link counts for the
// slow set.
//
// One report is not enough: a pause of a second on either end holds one
// probe block, the average of its pair jumps 10 to 100 times for that
// report, and the fit cannot tell it from a bad link, since nothing else
// of either node is slow (a pause spoils the one or two blocks in flight).
// But the rolling windows span less than a report interval, so one pause
// spoils at most one report of the pair; two reports in a row need two
// pauses of that pair's ends in two report intervals. A bad link is then
// in the slow set at the read after its second report: within two report
// intervals of the fault unless the fault began just before the first
// report, too late to move its average past the limit.
//
// Counting reports, not minutes: the cell of a direction changes only
// when its reporter reports, so a time rule must wait a whole interval
// and a read on top, the read after the second report, or it lets a single
// report through when it is seen by one read more than usual.
const confirmReports = 2

// direction is one measured direction of a pair: from sent to to.
type direction struct{ from, to string }

// linkState follows one direction that the diagnosis finds slow.
type linkState struct {
	reports int       // reports of from in a row that found it
	last    time.Time // arrival of the latest of them
	seen    bool      // found at the current step
}

// linkConfirmer turns the diagnosis's Link findings into the links that
// feed the slow set of links: those with a direction found slow in
// confirmReports reports in a row of its reporter (confirmReports).
type linkConfirmer struct {
	dirs map[direction]*linkState
}

func newLinkConfirmer() *linkConfirmer {
	return &linkConfirmer{dirs: map[direction]*linkState{}}
}

// confirm takes one diagnosis and the arrival of every reporter's latest
// report, and returns the links confirmed, as slow-set counts of link
// entities with the directions confirmed (1 or 2).
func (lc *linkConfirmer) confirm(findings []diagnosis.Finding, reported map[string]time.Time) []tracker.NodeCount {
	for _, st := range lc.dirs {
		st.seen = false
	}
	for _, f := range findings {
		if f.Kind != diagnosis.Link {
			continue
		}
		lc.see(direction{f.Node, f.Peer}, reported)
		if f.Reporters > 1 { // both directions were found: Peer → Node too
			lc.see(direction{f.Peer, f.Node}, reported)
		}
	}
	confirmed := map[string]int{}
	for d, st := range lc.dirs {
		if !st.seen { // the streak is broken
			delete(lc.dirs, d)
			continue
		}
		if st.reports >= confirmReports {
			confirmed[linkEntity(d.from, d.to)]++
		}
	}
	var out []tracker.NodeCount
	for e, n := range confirmed {
		out = append(out, tracker.NodeCount{Node: e, Reporters: n})
	}
	slices.SortFunc(out, func(a, b tracker.NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// see notes that d is found slow now, under its reporter's latest report.
func (lc *linkConfirmer) see(d direction, reported map[string]time.Time) {
	at := reported[d.from]
	st := lc.dirs[d]
	switch {
	case st == nil:
		lc.dirs[d] = &linkState{reports: 1, last: at, seen: true}
		return
	case at.After(st.last):
		st.reports++
		st.last = at
	}
	st.seen = true
}
