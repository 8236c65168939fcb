package suspect

import "time"

// finding is what the suspicion rules found of one target.
type finding struct {
	target     string
	node, peer string // the node; for a link its sender and receiver
	rule       Kind   // Inbound, Outbound, Both or Link
	reporters  int    // the reporters (or peers, for a sender) far above
	latencyMs  float64
	expectedMs float64
}

// evidence counts the fresh latencies of a set of pairs that are far
// above their expected latency.
type evidence struct {
	far, normal int
	latencyMs   float64 // the highest far above
	expectedMs  float64 // its expected latency
}

func (e *evidence) add(far bool, latencyMs, expectedMs float64) {
	if !far {
		e.normal++
		return
	}
	e.far++
	// The highest, and of equal ones the highest expected: not the
	// first in the pairs' order.
	if latencyMs > e.latencyMs || latencyMs == e.latencyMs && expectedMs > e.expectedMs {
		e.latencyMs, e.expectedMs = latencyMs, expectedMs
	}
}

// fresh reports whether o counts in a rule at now: recent, and newer
// than after (the clearing of an earlier suspicion of the same target).
func fresh(o *obs, now, after time.Time) bool {
	return o.age(now) < recentEvidence && (after.IsZero() || o.atNs > after.UnixNano())
}

// inbound is the evidence of the reporters towards name, each against
// the larger of the cluster's level and its own. Within a Step, the
// evidence of all of name's reporters since ever is computed once (the
// model does not change under d.mu): every reporter of a slow node is
// judged in the Step after its heartbeat, and each asks for the node's.
func (d *Detector) inbound(now time.Time, name, except string, after time.Time) evidence {
	if d.inMemo == nil || except != "" || !after.IsZero() {
		return d.gather(now, name, except, after, false)
	}
	e, ok := d.inMemo[name]
	if !ok {
		e = d.gather(now, name, "", after, false)
		d.inMemo[name] = e
	}
	return e
}

// outbound is the evidence of name's latest blocks to its peers, against
// the cluster's level.
func (d *Detector) outbound(now time.Time, name, except string, after time.Time) evidence {
	return d.gather(now, name, except, after, true)
}

// inboundBut is inbound(now, p, name, at) for a pair name → p that is
// fresh and far above: p's evidence from every reporter, less that pair's
// (its latencyMs and expectedMs are not the exact ones: only the counts
// are used).
func (d *Detector) inboundBut(now time.Time, p, name string, at time.Time) evidence {
	if !at.IsZero() {
		return d.inbound(now, p, name, at)
	}
	e := d.inbound(now, p, "", at)
	e.far--
	return e
}

// gather adds the fresh latencies of name's pairs but except's, towards
// it or (out) from it.
func (d *Detector) gather(now time.Time, name, except string, after time.Time, out bool) evidence {
	var e evidence
	n := d.m.nodes[name]
	if n == nil {
		return e
	}
	pairs, x := n.in, int32(-1)
	if out {
		pairs = n.out
	}
	if ex := d.m.nodes[except]; ex != nil {
		x = ex.id
	}
	for _, i := range pairs {
		o := d.m.pair(i)
		if o.end(out) == x || !fresh(o, now, after) {
			continue
		}
		exp := d.m.level(o.rel) // expected(name, other): the pair keeps its relation
		if !out {
			exp = d.m.expectedOfPair(o)
		}
		if exp > 0 {
			e.add(d.farAbove(o.latencyMs, exp), o.latencyMs, exp)
		}
	}
	return e
}

// inboundSlow and outboundSlow are the rules of a slow receiver and of a
// slow sender.
func inboundSlow(e evidence) bool  { return e.far >= 2 }
func outboundSlow(e evidence) bool { return e.far >= 3 && 2*e.far >= e.far+e.normal }

// nearlyAllNormal reports whether e has more normal evidence than far
// above, and at most one far above (a pause of one of many reporters).
func nearlyAllNormal(e evidence) bool { return e.normal > e.far && e.far <= 1 }

// rules judges name, a node that got far-above evidence, at now: as a
// receiver (when it received some: how), as a sender, and its links as
// their sender. after returns when a target was last cleared. A reporter
// that only sent a latency far above gets no new evidence as a receiver:
// weighing its reporters' (each against its own level) is the costliest
// part of a Step, and is left to when one of them finds it far above.
func (d *Detector) rules(now time.Time, name string, how hotness, after func(target string) time.Time) []finding {
	var out []finding
	since := after(name)
	var in evidence
	if how&hotReceiver != 0 {
		in = d.inbound(now, name, "", since)
	}
	snd := d.outbound(now, name, "", since)
	inSlow, outSlow := inboundSlow(in), outboundSlow(snd)
	switch {
	case inSlow && outSlow:
		out = append(out, finding{target: name, node: name, rule: Both, reporters: in.far,
			latencyMs: in.latencyMs, expectedMs: in.expectedMs})
	case inSlow:
		out = append(out, finding{target: name, node: name, rule: Inbound, reporters: in.far,
			latencyMs: in.latencyMs, expectedMs: in.expectedMs})
	case outSlow:
		out = append(out, finding{target: name, node: name, rule: Outbound, reporters: snd.far,
			latencyMs: snd.latencyMs, expectedMs: snd.expectedMs})
	}
	if outSlow {
		return out
	}
	n := d.m.nodes[name]
	if n == nil {
		return out
	}
	var zero time.Time
	for _, i := range n.out {
		o := d.m.pair(i)
		if !fresh(o, now, zero) {
			continue
		}
		exp := d.m.expectedOfPair(o)
		if !d.farAbove(o.latencyMs, exp) {
			continue
		}
		p := d.m.byID[o.peer].name
		target := linkEntity(name, p) // only for a pair far above: most are not
		at := after(target)
		if !fresh(o, now, at) {
			continue
		}
		// At most one other far pair on either side: the first blocks
		// of a slow sender are far on several of its peers.
		if !nearlyAllNormal(d.outbound(now, name, p, at)) || !nearlyAllNormal(d.inboundBut(now, p, name, at)) {
			continue
		}
		out = append(out, finding{target: target, node: name, peer: p, rule: Link, reporters: 1,
			latencyMs: o.latencyMs, expectedMs: exp})
	}
	return out
}

// stillSlow reports whether a confirmed suspicion's evidence still shows
// it slow at now.
func (d *Detector) stillSlow(now time.Time, s *suspicion) bool {
	var zero time.Time
	if s.peer != "" {
		o := d.m.outPair(d.m.nodes[s.node], s.peer)
		return o != nil && fresh(o, now, zero) && d.farAbove(o.latencyMs, d.m.expectedOfPair(o))
	}
	return inboundSlow(d.inbound(now, s.node, "", zero)) || outboundSlow(d.outbound(now, s.node, "", zero))
}
