package tracker

import (
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Limits bound what a Tracker holds, whatever its reporters send: a
// report that would take the Tracker past one is refused whole, with a
// *LimitError, and what the Tracker held before stays as it was. A zero
// field means no bound. A Limits is a plain value, safe to copy.
type Limits struct {
	// MaxEntries bounds the (slow node, reporter) entries held, valid or
	// not yet expired. An entry costs about 63 bytes (bench_test.go).
	MaxEntries int
	// MaxSlowNodes bounds the distinct nodes that some entry names slow.
	MaxSlowNodes int
}

// The limits a LimitError names.
const (
	LimitEntries   = "entries"
	LimitSlowNodes = "slow nodes"
)

// LimitError is a report refused because applying it would take the
// Tracker past one of its Limits.
type LimitError struct {
	// Limit is LimitEntries or LimitSlowNodes.
	Limit string
	// Max is the limit's value.
	Max int
}

// Error says which limit the report would pass.
func (e *LimitError) Error() string {
	return fmt.Sprintf("the tracker holds at most %d %s", e.Max, e.Limit)
}

// NewLimited returns an empty Tracker, as New, bounded by limits. It
// panics if validity is not positive or a limit is negative.
func NewLimited(validity time.Duration, limits Limits) *Tracker {
	if limits.MaxEntries < 0 || limits.MaxSlowNodes < 0 {
		panic(fmt.Sprintf("BUG: tracker.NewLimited: negative limit %+v", limits))
	}
	t := New(validity)
	t.limits = limits
	return t
}

// SlowNodes returns the number of distinct nodes that some entry names
// slow, valid or not yet expired: what Limits.MaxSlowNodes bounds.
func (t *Tracker) SlowNodes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.slow
}

// admitLocked returns a *LimitError when making peers the whole report of
// reporter (id r when known) would take the Tracker past its limits, else
// nil. It first tries a bound that needs no lookup (every peer new), and
// counts exactly only when that bound does not fit. The caller holds t.mu.
func (t *Tracker) admitLocked(r uint32, known bool, reporter string, peers []reports.SlowPeer) error {
	l := t.limits
	entriesFit := l.MaxEntries == 0 || t.entries+len(peers) <= l.MaxEntries
	slowFit := l.MaxSlowNodes == 0 || t.slow+len(peers) <= l.MaxSlowNodes
	if entriesFit && slowFit {
		return nil
	}
	names := make(map[string]struct{}, len(peers))
	for i := range peers {
		if peers[i].Node != reporter {
			names[peers[i].Node] = struct{}{}
		}
	}
	// What the earlier report holds: its entries go, and so do the slow
	// nodes that only it names and that the new report leaves out.
	dropped, freed := 0, 0
	if known {
		dropped = len(t.nodes[r].reports)
		for _, ref := range t.nodes[r].reports {
			s := &t.nodes[ref.slow]
			if _, still := names[s.name]; !still && len(s.reportedBy) == 1 {
				freed++
			}
		}
	}
	if l.MaxEntries > 0 && t.entries-dropped+len(names) > l.MaxEntries {
		return &LimitError{Limit: LimitEntries, Max: l.MaxEntries}
	}
	if l.MaxSlowNodes == 0 {
		return nil
	}
	added := 0
	for name := range names {
		if id, ok := t.ids[name]; !ok || len(t.nodes[id].reportedBy) == 0 {
			added++
		}
	}
	if t.slow-freed+added > l.MaxSlowNodes {
		return &LimitError{Limit: LimitSlowNodes, Max: l.MaxSlowNodes}
	}
	return nil
}

// TopCounts returns the n best-ranked slow nodes at now, in Top's order,
// with their numbers of valid reporters but without the reports, and the
// number of all nodes with a valid report at now. It is what /metrics
// needs: a series for the slow nodes that matter, not for every name a
// sender made up. n <= 0 returns an empty non-nil slice and the count.
func (t *Tracker) TopCounts(now time.Time, n int) (top []NodeCount, slowNodes int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.instant(now)
	for i := range t.nodes {
		if len(t.nodes[i].reportedBy) == 0 {
			continue
		}
		if valid, _ := t.summarizeLocked(at, uint32(i)); valid > 0 {
			slowNodes++
		}
	}
	if n <= 0 {
		return []NodeCount{}, slowNodes
	}
	best := t.selectLocked(at, n)
	top = make([]NodeCount, len(best))
	for i, b := range best {
		top[i] = NodeCount{Node: t.nodes[b.id].name, Reporters: b.valid}
	}
	return top, slowNodes
}
