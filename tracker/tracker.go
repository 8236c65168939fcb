package tracker

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Tracker aggregates slow-peer reports per slow node. Safe for concurrent use.
// Construct with New; the zero value is not usable.
//
// It keeps, for every slow node and every node that reports it, the newest
// report and its arrival time, as Hadoop's SlowPeerTracker does, with three
// departures that DESIGN.md fixes: a report replaces everything its reporter
// said before, expired entries are deleted (by Expire), and Top breaks ties
// deterministically.
//
// A report is valid at now while now.Sub(arrival) < validity (strict), as in
// SlowPeerTracker.filterNodeReports. Reads never return an expired report,
// whether or not Expire has run. All times passed in should come from one
// clock, at most 146 years apart; the Tracker never reads the clock itself.
//
// Latencies are stored as given; they are expected to have passed
// reports.ValidateLatency (finite, not negative).
//
// Cost, at 10 000 slow nodes × 20 reporters (bench_test.go): an entry
// holds about 63 bytes; a Report costs tens of nanoseconds per entry; Top
// rechecks only the slow nodes whose summary changed since the last read
// (summary.go), then selects its n nodes with a heap (rank.go). Node ids are
// reused, but the id table keeps the size of the most nodes known at once.
type Tracker struct {
	validity time.Duration
	limits   Limits

	mu          sync.Mutex
	epoch       time.Time         // the first time passed in; instants count from it
	started     bool              // epoch is set
	ids         map[string]uint32 // node name -> index in nodes
	nodes       []node            // indexed by id; released slots are reused through free
	arrivals    []instant         // indexed by id: when the node's current report arrived
	free        []uint32          // released ids, reused before nodes grows
	entries     int               // (slow node, reporter) entries held
	slow        int               // nodes with a non-empty reportedBy list
	touched     []uint32          // scratch: the slow nodes of the report being replaced
	best        []rank            // scratch: Top's selection heap
	reportCount uint64            // number of Report calls; marks the entries each gave
}

// New returns an empty Tracker in which a report stays valid for
// validity after it arrives: 3 × dfs.datanode.outliers.report.interval, as
// SlowPeerTracker sets reportValidityMs. It panics if validity is not positive.
func New(validity time.Duration) *Tracker {
	if validity <= 0 {
		panic(fmt.Sprintf("BUG: tracker.New: validity %v is not positive", validity))
	}
	return &Tracker{validity: validity, ids: make(map[string]uint32)}
}

// Report applies one heartbeat's slow-peer report from reporter, received at
// now: it replaces everything reporter said before. peers may be empty
// (clears reporter's reports). A reporter naming itself is ignored for that
// entry; a peer named twice keeps the last statistics given for it.
//
// Unlike DatanodeManager.handleHeartbeat, which adds each slow peer and
// leaves earlier ones standing, a report here is the whole truth of its
// reporter at now.
//
// A report that would take the Tracker past its Limits (NewLimited) is
// refused whole with a *LimitError; reporter's earlier report then stands.
func (t *Tracker) Report(now time.Time, reporter string, peers []reports.SlowPeer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, known := t.ids[reporter]
	if !known && len(peers) == 0 {
		return nil
	}
	if err := t.admitLocked(r, known, reporter, peers); err != nil {
		return err
	}
	arrival := t.instant(now)
	if !known {
		r = t.intern(reporter)
	}
	t.replaceLocked(r, arrival, reporter, peers)
	return nil
}

// Top returns up to n slow nodes with at least one valid report at now: most
// valid reporters first, ties by the highest valid reported latency, then by
// node name. Each node's Reporters are sorted by reporting node name (Hadoop's
// SortedSet order). n <= 0 returns an empty non-nil slice.
//
// Reference: SlowPeerTracker.getJsonReports, which ranks by the number of
// reporters alone with a PriorityQueue and emits heap order.
func (t *Tracker) Top(now time.Time, n int) []reports.SlowNode {
	if n <= 0 {
		return []reports.SlowNode{}
	}
	t.mu.Lock()
	at := t.instant(now)
	best := t.selectLocked(at, n)
	out := make([]reports.SlowNode, len(best))
	for i, b := range best {
		out[i] = reports.SlowNode{Node: t.nodes[b.id].name, Reporters: t.reportersLocked(at, b.id, b.valid)}
	}
	t.mu.Unlock()
	for _, s := range out {
		slices.SortFunc(s.Reporters, func(a, b reports.Reporter) int { return strings.Compare(a.Node, b.Node) })
	}
	return out
}

// Reported returns, for each of nodes in their order, its valid reporters
// at now as Top gives them, leaving out the nodes without one. With
// TopCounts, a reader can write a long top a page at a time.
func (t *Tracker) Reported(now time.Time, nodes []string) []reports.SlowNode {
	t.mu.Lock()
	at := t.instant(now)
	out := make([]reports.SlowNode, 0, len(nodes))
	for _, name := range nodes {
		id, ok := t.ids[name]
		if !ok || len(t.nodes[id].reportedBy) == 0 {
			continue
		}
		if valid, _ := t.summarizeLocked(at, uint32(id)); valid > 0 {
			out = append(out, reports.SlowNode{Node: t.nodes[id].name, Reporters: t.reportersLocked(at, uint32(id), valid)})
		}
	}
	t.mu.Unlock()
	for _, s := range out {
		slices.SortFunc(s.Reporters, func(a, b reports.Reporter) int { return strings.Compare(a.Node, b.Node) })
	}
	return out
}

// IsSlow reports whether node has at least one valid report at now.
func (t *Tracker) IsSlow(now time.Time, node string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[node]
	if !ok || len(t.nodes[id].reportedBy) == 0 {
		return false
	}
	valid, _ := t.summarizeLocked(t.instant(now), id)
	return valid > 0
}

// Expire deletes every report not valid at now and returns how many
// (slow node, reporter) entries it deleted. Hadoop's SlowPeerTracker never
// deletes; here memory stays bounded by the live reports.
func (t *Tracker) Expire(now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.instant(now)
	deleted := 0
	for i, arrival := range t.arrivals {
		r := uint32(i)
		if t.valid(at, arrival) || len(t.nodes[r].reports) == 0 {
			continue
		}
		deleted += len(t.nodes[r].reports)
		t.dropLocked(r, 0)
		for _, s := range t.touched {
			t.releaseIfUnused(s)
		}
		t.releaseIfUnused(r)
	}
	return deleted
}

// NodeCount is a slow node and its number of valid reporters
// (reports.NodeCount, which the diagnosis gives the slow sets too).
type NodeCount = reports.NodeCount

// Counts returns every slow node with valid reports at now and its number
// of valid reporters, sorted by node name (for metrics). The slice is the
// caller's: the Tracker copies under its lock and sorts after it.
func (t *Tracker) Counts(now time.Time) []NodeCount {
	t.mu.Lock()
	at := t.instant(now)
	out := make([]NodeCount, 0, len(t.ids)/2)
	for i := range t.nodes {
		if len(t.nodes[i].reportedBy) == 0 {
			continue
		}
		if valid, _ := t.summarizeLocked(at, uint32(i)); valid > 0 {
			out = append(out, NodeCount{Node: t.nodes[i].name, Reporters: valid})
		}
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// Entries returns the number of (slow node, reporter) entries held, valid or
// not yet expired.
func (t *Tracker) Entries() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.entries
}

// instant is a time as nanoseconds since the Tracker's epoch, the first time
// passed in. Comparing int64s is several times cheaper than time.Time.Sub,
// which reads would otherwise call once per entry.
type instant int64

// maxInstant bounds instants so that the difference of two never overflows:
// times more than 146 years from the epoch are taken as 146 years from it.
const maxInstant = 1 << 62

// instant converts now, through time.Time.Sub, so that monotonic clock
// readings are used when now and the epoch both carry one, as Hadoop's
// Timer.monotonicNow. The caller holds t.mu.
func (t *Tracker) instant(now time.Time) instant {
	if !t.started {
		t.epoch, t.started = now, true
	}
	return instant(min(max(now.Sub(t.epoch), -maxInstant), maxInstant))
}

// valid reports whether a report that arrived at arrival is valid at now.
//
// Reference: SlowPeerTracker.filterNodeReports (now - time < reportValidityMs).
func (t *Tracker) valid(now, arrival instant) bool {
	return now-arrival < instant(t.validity)
}

// reportersLocked copies the valid reports on slow node id at now; valid is
// their number. The caller holds t.mu.
func (t *Tracker) reportersLocked(now instant, id uint32, valid int) []reports.Reporter {
	out := make([]reports.Reporter, 0, valid)
	for _, e := range t.nodes[id].reportedBy {
		if !t.valid(now, t.arrivals[e.reporter]) {
			continue
		}
		out = append(out, reports.Reporter{
			Node:         t.nodes[e.reporter].name,
			LatencyMs:    e.latencyMs,
			MedianMs:     e.medianMs,
			MADMs:        e.madMs,
			UpperLimitMs: e.upperLimitMs,
		})
	}
	return out
}
