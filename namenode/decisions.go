package namenode

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// What the service decided, and why: for every member of the slow sets
// (and every node or link found slow on its way in), the finding that
// counts for it, and a small history of each member; every entry and
// exit is logged as one line and counted in slowpeer_slow_set_changes_total.

// The slow sets, as the log and slowpeer_slow_set_changes_total name them.
const (
	setNodes = "nodes"
	setLinks = "links"
)

// The changes of a slow set.
const (
	changeEntered = "entered"
	changeLeft    = "left"
)

// KindReports is the kind of a slow set member counted by the slow-peer
// reports of agents that send no peerLatencies (Hadoop's rule, for
// agents reading a Hadoop DataNode with -hadoop-jmx), where the diagnosis
// has no finding.
const KindReports = "reports"

// History bounds: a point a minute, six hours of them, for at most
// MaxHistoryNodes members of the slow sets (about 6 KB each).
const (
	HistoryStep     = time.Minute
	HistoryPoints   = 360
	MaxHistoryNodes = 1000
)

const changesFamily = "slowpeer_slow_set_changes_total"

// reason is why a node or link counts toward a slow set at a diagnosis.
type reason struct {
	kind string // a diagnosis.Kind, or KindReports
	rack string // for a rack
	// node and peer are the sender and the receiver of a link's slower
	// direction.
	node, peer          string
	pairs               int
	latencyMs, medianMs float64
	// fast is set for an admission of the fast path, which confirmed
	// the entity in rounds rounds of probes; medianMs is then the
	// latency it expected.
	fast   bool
	rounds int
}

// HistoryPoint is one minute of a slow set member's history: the most
// pairs (or reporters) found that minute and the highest latency.
type HistoryPoint struct {
	// At is the start of the minute.
	At time.Time
	// Pairs is the evidence it counted with; 0 when it was not found.
	Pairs int
	// LatencyMs is the latency of its finding, 0 without one.
	LatencyMs float64
}

// decisions keeps the reasons and histories of the slow sets' members.
// Its methods are called by one diagnosis at a time (under the
// diagnoser's stepMu) and read by the views; it is safe for concurrent
// use.
type decisions struct {
	log     *slog.Logger
	changes map[[2]string]*atomic.Int64 // by {set, change}

	mu   sync.Mutex
	why  map[string]reason // by node or link entity: the last reason seen
	hist map[string][]HistoryPoint
}

func newDecisions(log *slog.Logger) *decisions {
	d := &decisions{log: log, changes: map[[2]string]*atomic.Int64{},
		why: map[string]reason{}, hist: map[string][]HistoryPoint{}}
	for _, set := range []string{setNodes, setLinks} {
		for _, ch := range []string{changeEntered, changeLeft} {
			d.changes[[2]string{set, ch}] = new(atomic.Int64)
		}
	}
	return d
}

// reasonsOf says why each node or link of a diagnosis counts, by the rule
// of diagnosis.Evidence: a node by the finding with the most pairs (a
// rack's nodes by the rack's), plus the reports of unmeasured reporters;
// a link by its finding.
func reasonsOf(findings []diagnosis.Finding, rackNodes func(string) []string, unmeasured []tracker.NodeCount) map[string]reason {
	why := map[string]reason{}
	better := func(node string, r reason) {
		if old, ok := why[node]; !ok || r.pairs > old.pairs {
			why[node] = r
		}
	}
	for _, f := range findings {
		r := reason{kind: string(f.Kind), pairs: f.Reporters, latencyMs: f.LatencyMs, medianMs: f.MedianMs}
		switch f.Kind {
		case diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both:
			better(f.Node, r)
		case diagnosis.Rack:
			if rackNodes != nil {
				r.rack = f.Rack
				for _, n := range rackNodes(f.Rack) {
					better(n, r)
				}
			}
		case diagnosis.Link:
			r.node, r.peer = f.Node, f.Peer
			better(diagnosis.LinkEntity(f.Node, f.Peer), r)
		}
	}
	for _, u := range unmeasured {
		if u.Reporters <= 0 {
			continue
		}
		r, ok := why[u.Node]
		if !ok {
			r = reason{kind: KindReports}
		}
		r.pairs += u.Reporters
		why[u.Node] = r
	}
	return why
}

// observe records a diagnosis at now: why (reasonsOf) for the entities
// found, the change of the slow set named set, and its members after it.
// It logs each entry and exit, and adds a history point to each member.
func (d *decisions) observe(now time.Time, set string, why map[string]reason, ch tracker.Change, members []string, leaveAfter time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for e, r := range why {
		if (set == setLinks) == isLink(e) {
			d.why[e] = r
		}
	}
	for _, e := range ch.Entered {
		d.logLocked(now, set, changeEntered, e, "found long enough by enough pairs")
	}
	for _, e := range ch.Left {
		d.logLocked(now, set, changeLeft, e, fmt.Sprintf("not found for %v", leaveAfter))
		delete(d.why, e)
		delete(d.hist, e)
	}
	// What was found and is not a member yet stays only while found.
	inSet := make(map[string]bool, len(members))
	for _, m := range members {
		inSet[m] = true
	}
	for e := range d.why {
		if (set == setLinks) == isLink(e) && !inSet[e] {
			if _, found := why[e]; !found {
				delete(d.why, e)
			}
		}
	}
	minute := now.Truncate(HistoryStep)
	for _, m := range members {
		r := why[m] // zero when not found this time
		h, ok := d.hist[m]
		if !ok && len(d.hist) >= MaxHistoryNodes {
			continue
		}
		if n := len(h); n > 0 && h[n-1].At.Equal(minute) {
			h[n-1].Pairs = max(h[n-1].Pairs, r.pairs)
			h[n-1].LatencyMs = max(h[n-1].LatencyMs, r.latencyMs)
		} else {
			if len(h) == HistoryPoints {
				h = append(h[:0], h[1:]...)
			}
			h = append(h, HistoryPoint{At: minute, Pairs: r.pairs, LatencyMs: r.latencyMs})
		}
		d.hist[m] = h
	}
}

// admit records that the fast path admitted entity to set at now,
// because of r; when it entered, the line of the entry says so.
func (d *decisions) admit(now time.Time, set, entity string, r reason, entered bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.why[entity] = r
	if entered {
		d.logLocked(now, set, changeEntered, entity,
			fmt.Sprintf("fast path: confirmed by %d rounds of targeted probes", r.rounds))
	}
}

// kindIs reports whether the last reason known for entity is of kind.
func (d *decisions) kindIs(entity, kind string) bool {
	r, ok := d.reason(entity)
	return ok && r.kind == kind
}

// left records that entity left set at now for reason, outside a
// diagnosis (an exclusion, a forgotten node).
func (d *decisions) left(now time.Time, set, entity, reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.logLocked(now, set, changeLeft, entity, reason)
	delete(d.why, entity)
	delete(d.hist, entity)
}

// forget drops what is known of entity that is not a member.
func (d *decisions) forget(entity string) {
	d.mu.Lock()
	delete(d.why, entity)
	delete(d.hist, entity)
	d.mu.Unlock()
}

// logLocked writes the one line of a change and counts it. The caller
// holds d.mu.
func (d *decisions) logLocked(now time.Time, set, change, entity, because string) {
	d.changes[[2]string{set, change}].Add(1)
	attrs := []any{slog.String("set", set), slog.String("change", change)}
	r, known := d.why[entity]
	if set == setLinks && known {
		attrs = append(attrs, slog.String("node", r.node), slog.String("peer", r.peer))
	} else if set == setLinks {
		a, b := linkEnds(entity)
		attrs = append(attrs, slog.String("node", a), slog.String("peer", b))
	} else {
		attrs = append(attrs, slog.String("node", entity))
	}
	if known {
		attrs = append(attrs, slog.String("kind", r.kind), slog.Int("pairs", r.pairs))
		if r.rack != "" {
			attrs = append(attrs, slog.String("rack", r.rack))
		}
		if r.latencyMs > 0 {
			attrs = append(attrs, slog.Float64("latencyMs", r.latencyMs), slog.Float64("medianMs", r.medianMs))
		}
	}
	attrs = append(attrs, slog.String("reason", because))
	level := slog.LevelWarn
	if change == changeLeft {
		level = slog.LevelInfo
	}
	d.log.Log(context.Background(), level, "slow set "+change, attrs...)
}

// reason returns the last reason known for entity.
func (d *decisions) reason(entity string) (reason, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.why[entity]
	return r, ok
}

// history returns a copy of entity's history.
func (d *decisions) history(entity string) []HistoryPoint {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]HistoryPoint(nil), d.hist[entity]...)
}

// writeMetrics writes changesFamily.
func (d *decisions) writeMetrics(w io.Writer) {
	writeFamilyHeader(w, changesFamily, "counter",
		"Entries into and exits from the slow sets (set nodes or links), each also logged as one line.")
	for _, set := range []string{setNodes, setLinks} {
		for _, ch := range []string{changeEntered, changeLeft} {
			fmt.Fprintf(w, "%s{set=%s,change=%s} %d\n", changesFamily, reports.QuoteLabel(set), reports.QuoteLabel(ch), d.changes[[2]string{set, ch}].Load())
		}
	}
}

// isLink reports whether entity is a link of the slow set of links.
func isLink(entity string) bool { return len(entity) > 5 && entity[:5] == "link:" }
