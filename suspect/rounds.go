package suspect

import (
	"cmp"
	"hash/fnv"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// ask is one probe a round wants: agent probes node.
type ask struct{ agent, node string }

// round is one confirmation round of a suspicion.
type round struct {
	id    int64
	asked time.Time
	// witnesses are the target's reporters asked to probe it,
	// controls[i] a peer of witnesses[i] it probes too; peers are the
	// suspect's peers it probes, others[i] another reporter of peers[i].
	witnesses, controls []string
	peers, others       []string
	// members[i] are the rack's nodes witnesses[i] probes, in a rack
	// round.
	members [][]string
	answers map[ask]float64 // latencyMs, 0 until answered
	probes  []Probe         // what was asked, for the view
}

// Probe is one probe request of a round, as the view shows it.
type Probe struct {
	// Agent is asked to probe Node with Blocks blocks in Round.
	Agent  string `json:"agent"`
	Node   string `json:"node"`
	Blocks int    `json:"blocks"`
	Round  int64  `json:"round"`
	// Handed is true once the request went out in a heartbeat reply.
	Handed bool `json:"handed"`
	// LatencyMs is the answer, 0 until it came.
	LatencyMs float64 `json:"latencyMs,omitempty"`
}

// eligible reports whether name can serve as a witness or control at now:
// an agent that sends recent latencies, live, and suspected of nothing.
func (d *Detector) eligible(now time.Time, name string, live func(string) bool) bool {
	n := d.m.nodes[name]
	if n == nil || now.Sub(n.reported) >= recentEvidence || !live(name) {
		return false
	}
	s := d.sus[name]
	return s == nil || s.state == Cleared
}

// pick returns up to k eligible nodes among from (the other ends of a
// node's pairs: the agents that measure it, or the peers it measures)
// and not in skip, those whose rack differs from avoidRack first, then
// the least loaded, then in an order that changes with seed (then by
// name: not in from's order).
func (d *Detector) pick(now time.Time, from []string, k int, avoidRack string, skip []string, seed int64, live func(string) bool) []string {
	type cand struct {
		name     string
		sameRack bool
		load     int
		order    uint32
	}
	var cs []cand
	for _, name := range from {
		if slices.Contains(skip, name) || !d.eligible(now, name, live) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(name))
		h.Write([]byte{byte(seed), byte(seed >> 8), byte(seed >> 16)})
		cs = append(cs, cand{name, avoidRack != "" && d.m.nodes[name].rack == avoidRack, len(d.queue[name]), h.Sum32()})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.sameRack != b.sameRack {
			if a.sameRack {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.load, b.load), cmp.Compare(a.order, b.order), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, k)
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// pairs returns up to k pairs (x[i], y[i]) for a round: x among from,
// y[i] one of pool(x[i]) (a different one for each where it can be), all
// outside skip. Only agents that measure a node are asked to probe it.
func (d *Detector) pairs(now time.Time, from []string, pool func(string) []string, k int, avoid string, skip []string, seed int64, live func(string) bool) (x, y []string) {
	for i, a := range d.pick(now, from, k, avoid, skip, seed, live) {
		cs := d.pick(now, pool(a), 1, avoid, append(slices.Concat(skip, y), a), seed+int64(i+1)*7919, live)
		if len(cs) == 0 {
			cs = d.pick(now, pool(a), 1, avoid, append(slices.Clone(skip), a), seed+int64(i+1)*7919, live)
		}
		if len(cs) == 1 {
			x, y = append(x, a), append(y, cs[0])
		}
	}
	return x, y
}

// plan builds the next round of s at now, or returns nil when the
// cluster has too few healthy agents for one. Every probe it asks is of
// a pair the model has seen measured: an agent probes only its peers.
func (d *Detector) plan(now time.Time, s *suspicion, live func(string) bool) *round {
	d.nextRound++
	id := d.nextRound
	target := s.node
	skip := []string{s.node}
	if s.peer != "" {
		target = s.peer
		skip = append(skip, s.peer)
	}
	sus, tgt := d.m.nodes[s.node], d.m.nodes[target]
	if sus == nil || tgt == nil {
		return nil
	}
	outOf := func(n string) []string { return d.m.peersOf(d.m.nodes[n]) }
	inOf := func(n string) []string { return d.m.reportersOf(d.m.nodes[n]) }
	r := &round{id: id, asked: now, answers: map[ask]float64{}}
	// The receiver side: the target's reporters probe it and a control
	// of their own peers.
	r.witnesses, r.controls = d.pairs(now, d.m.reportersOf(tgt), outOf, d.cfg.Witnesses, tgt.rack, skip, id, live)
	// The sender side, when the suspect answers (not an agent reading
	// -hadoop-jmx): it probes its own peers, each also probed by another
	// of its reporters.
	if now.Sub(sus.reported) < recentEvidence {
		r.peers, r.others = d.pairs(now, d.m.peersOf(sus), inOf, d.cfg.Witnesses, sus.rack, skip, id+1, live)
	}
	if len(r.witnesses) < 2 && len(r.peers) < 2 || s.peer != "" && len(r.peers) < 2 {
		return nil
	}
	for i, w := range r.witnesses {
		r.want(w, target)
		r.want(w, r.controls[i])
	}
	for i, p := range r.peers {
		r.want(s.node, p)
		r.want(r.others[i], p)
	}
	if s.peer != "" {
		r.want(s.node, s.peer)
	}
	d.enqueue(r)
	return r
}

// enqueue queues the probe requests of round r for their agents. The
// caller holds d.mu.
func (d *Detector) enqueue(r *round) {
	for _, a := range r.order() {
		req := reports.ProbeRequest{Node: a.node, Blocks: d.cfg.Blocks, Round: r.id}
		d.queue[a.agent] = append(d.queue[a.agent], req)
		d.setWaiting(a.agent, true)
		r.probes = append(r.probes, Probe{Agent: a.agent, Node: a.node, Blocks: d.cfg.Blocks, Round: r.id})
	}
}

func (n *member) rackOrEmpty() string {
	if n == nil {
		return ""
	}
	return n.rack
}

// want adds a probe to the round, once.
func (r *round) want(agent, node string) {
	if agent != node {
		r.answers[ask{agent, node}] = 0
	}
}

// order returns the round's asks sorted, for a deterministic queue.
func (r *round) order() []ask {
	out := make([]ask, 0, len(r.answers))
	for a := range r.answers {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b ask) int {
		return cmp.Or(cmp.Compare(a.agent, b.agent), cmp.Compare(a.node, b.node))
	})
	return out
}

// complete reports whether every ask has its answer.
func (r *round) complete() bool {
	for _, v := range r.answers {
		if v == 0 {
			return false
		}
	}
	return true
}

// answer records the answer of agent about node; false when the round
// did not ask it.
func (r *round) answer(agent, node string, latencyMs float64) bool {
	if _, ok := r.answers[ask{agent, node}]; !ok {
		return false
	}
	r.answers[ask{agent, node}] = latencyMs
	for i := range r.probes {
		if r.probes[i].Agent == agent && r.probes[i].Node == node {
			r.probes[i].LatencyMs = latencyMs
		}
	}
	return true
}

// judge returns the kind the round found its target far above as, or ""
// when it did not. A pair counts as far above only when its latency is
// also MinExcessMs above its comparison's: on a loaded machine, blocks of
// a few hundredths of a millisecond are three times as long now and then.
func (d *Detector) judge(s *suspicion, r *round) Kind {
	raw := func(agent, node string) float64 { return r.answers[ask{agent, node}] }
	norm := func(agent, node string) float64 {
		x := raw(agent, node)
		if x <= 0 {
			return 0
		}
		if e := d.m.expected(agent, node); e > 0 {
			return x / e
		}
		return x
	}
	target := s.node
	if s.peer != "" {
		target = s.peer
	}
	// The receiver test: each witness's blocks to the target over its
	// blocks to its control, at the same time.
	var in []comparison
	for i, w := range r.witnesses {
		if a, c := norm(w, target), norm(w, r.controls[i]); a > 0 && c > 0 {
			in = append(in, comparison{a / c, raw(w, target) - raw(w, r.controls[i])})
		}
	}
	// The sender test: the node's blocks to each peer over another
	// reporter's blocks to it, at the same time.
	var out []comparison
	var own, ownRaw []float64
	for i, p := range r.peers {
		o := norm(s.node, p)
		if o > 0 {
			own, ownRaw = append(own, o), append(ownRaw, raw(s.node, p))
		}
		if c := norm(r.others[i], p); o > 0 && c > 0 {
			out = append(out, comparison{o / c, raw(s.node, p) - raw(r.others[i], p)})
		}
	}
	inSlow, outSlow := d.most(in), d.most(out)
	if s.peer != "" {
		// A link: the sender's blocks to the far end over its own to
		// its other peers, while it sends and the far end receives
		// normally.
		ab := norm(s.node, s.peer)
		if len(own) >= 2 && ab > 0 && d.far(comparison{ab / median(own), raw(s.node, s.peer) - median(ownRaw)}) &&
			!inSlow && !outSlow {
			return Link
		}
		return ""
	}
	switch {
	case inSlow && outSlow, inSlow && d.raised(s.node, 1), outSlow && d.raised(s.node, 0):
		// A host 2 to 3 times slower, near Ratio, is far above in one
		// direction and only raised above its own baseline in the
		// other (the mild rule's last look): both.
		return Both
	case inSlow:
		return Inbound
	case outSlow:
		return Outbound
	}
	return ""
}

// MinExcessMs is how much longer than what it is compared with a latency
// must be, beside Ratio times, to count as far above: in a round, against
// its comparison at the same time; in the evidence that opens a
// suspicion, against its expected latency.
const MinExcessMs = 1.0

// comparison is a round's block against its comparison at the same time:
// how many times as long, and how much longer in milliseconds.
type comparison struct{ ratio, excessMs float64 }

func (d *Detector) far(c comparison) bool { return c.ratio >= d.cfg.Ratio && c.excessMs >= MinExcessMs }

// farAbove reports whether a pair's latency is far above its expected
// latency, as a round's block is above its comparison (far).
func (d *Detector) farAbove(latencyMs, expectedMs float64) bool {
	return expectedMs > 0 && d.far(comparison{latencyMs / expectedMs, latencyMs - expectedMs})
}

// most reports whether at least two, and at least half, of the
// comparisons are far above.
func (d *Detector) most(cs []comparison) bool {
	far := 0
	for _, c := range cs {
		if d.far(c) {
			far++
		}
	}
	return far >= 2 && 2*far >= len(cs)
}
