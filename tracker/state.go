package tracker

import (
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Held is one reporter's current report as the Tracker holds it: what
// Dump returns and Restore takes, so that a service replica can hand its
// state to another one, or to a file, and get it back after a restart.
type Held struct {
	// Reporter is the reporting node's id, "host:port".
	Reporter string
	// Arrival is when the report arrived (the now of its Report call).
	Arrival time.Time
	// SlowPeers is the report: the nodes Reporter found slow, with the
	// figures it sent. It is never empty.
	SlowPeers []reports.SlowPeer
}

// Dump returns every report valid at now with its arrival time, sorted by
// reporter; each report's peers are in the order the reporter sent them.
// Restore(now, Dump(now)) on an empty Tracker of the same validity makes
// Top, IsSlow and Counts answer the same at now and later.
func (t *Tracker) Dump(now time.Time) []Held {
	return t.HeldOf(now, t.Reporters(now))
}

// Reporters returns, sorted, the reporters whose report is valid at now:
// with HeldOf, a reader can take the reports a page at a time, holding
// the Tracker's lock for one page only.
func (t *Tracker) Reporters(now time.Time) []string {
	t.mu.Lock()
	at := t.instant(now)
	var out []string
	for i := range t.nodes {
		if t.heldLocked(at, i) {
			out = append(out, t.nodes[i].name)
		}
	}
	t.mu.Unlock()
	slices.Sort(out)
	return out
}

// HeldOf returns the reports of reporters valid at now, in their order,
// leaving out the reporters without one.
func (t *Tracker) HeldOf(now time.Time, reporters []string) []Held {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.instant(now)
	out := make([]Held, 0, len(reporters))
	for _, name := range reporters {
		i, ok := t.ids[name]
		if !ok || !t.heldLocked(at, int(i)) {
			continue
		}
		r := &t.nodes[i]
		h := Held{
			Reporter:  r.name,
			Arrival:   t.epoch.Add(time.Duration(t.arrivals[i])).Round(0),
			SlowPeers: make([]reports.SlowPeer, len(r.reports)),
		}
		for j, ref := range r.reports {
			slow := &t.nodes[ref.slow]
			e := &slow.reportedBy[ref.index]
			h.SlowPeers[j] = reports.SlowPeer{Node: slow.name, LatencyMs: e.latencyMs,
				MedianMs: e.medianMs, MADMs: e.madMs, UpperLimitMs: e.upperLimitMs}
		}
		out = append(out, h)
	}
	return out
}

// heldLocked reports whether node i has a report valid at at. The caller
// holds t.mu.
func (t *Tracker) heldLocked(at instant, i int) bool {
	r := &t.nodes[i]
	return r.live && len(r.reports) > 0 && t.valid(at, t.arrivals[i])
}

// Restore applies held reports, as Report would have when each arrived at
// its Arrival, and returns how many it applied. A report is skipped when
// it is no longer valid at now, when it is empty, or when the Tracker
// already holds a report of the same reporter that arrived at the same
// time or later (a heartbeat that came in first wins), and when it would
// take the Tracker past its Limits (Report would refuse it). A report
// from after now is taken as arrived now. Held reports should
// have passed reports.Heartbeat.Validate; Restore does not check them.
//
// Arrival times are compared with now by wall clock: held reports come
// from another process or a file, so they carry no monotonic reading.
func (t *Tracker) Restore(now time.Time, held []Held) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.instant(now)
	applied := 0
	for _, h := range held {
		if len(h.SlowPeers) == 0 {
			continue
		}
		arrival := t.instantOf(h.Arrival)
		if arrival > at {
			// From the future (the sender's clock runs ahead): taken as
			// arrived now, so it expires at most the skew late.
			arrival = at
		}
		if !t.valid(at, arrival) {
			continue
		}
		r, known := t.ids[h.Reporter]
		if known && len(t.nodes[r].reports) > 0 && t.arrivals[r] >= arrival {
			continue
		}
		if t.admitLocked(r, known, h.Reporter, h.SlowPeers) != nil {
			continue // past the limits, as a posted report would be
		}
		if !known {
			r = t.intern(h.Reporter)
		}
		t.replaceLocked(r, arrival, h.Reporter, h.SlowPeers)
		applied++
	}
	return applied
}

// instantOf converts a time that need not carry a monotonic reading; the
// caller holds t.mu and has started the epoch.
func (t *Tracker) instantOf(at time.Time) instant {
	return instant(min(max(at.Round(0).Sub(t.epoch.Round(0)), -maxInstant), maxInstant))
}
