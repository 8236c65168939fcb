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
	// witnesses are the healthy agents asked (for a link, the third
	// nodes), controls[i] the control of witnesses[i].
	witnesses, controls []string
	answers             map[ask]float64 // latencyMs, 0 until answered
	probes              []Probe         // what was asked, for the view
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

// pick returns up to k eligible nodes not in skip, those whose rack
// differs from avoidRack first, then the least loaded, then in an order
// that changes with seed.
func (d *Detector) pick(now time.Time, k int, avoidRack string, skip []string, seed int64, live func(string) bool) []string {
	type cand struct {
		name     string
		sameRack bool
		load     int
		order    uint32
	}
	var cs []cand
	for name, n := range d.m.nodes {
		if slices.Contains(skip, name) || !d.eligible(now, name, live) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(name))
		h.Write([]byte{byte(seed), byte(seed >> 8), byte(seed >> 16)})
		cs = append(cs, cand{name, avoidRack != "" && n.rack == avoidRack, len(d.queue[name]), h.Sum32()})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.sameRack != b.sameRack {
			if a.sameRack {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.load, b.load); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
	out := make([]string, 0, k)
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// plan builds the next round of s at now, or returns nil when the
// cluster has too few healthy agents for one.
func (d *Detector) plan(now time.Time, s *suspicion, live func(string) bool) *round {
	d.nextRound++
	id := d.nextRound
	avoid := d.m.nodes[s.node].rackOrEmpty()
	skip := []string{s.node}
	if s.peer != "" {
		skip = append(skip, s.peer)
		avoid = d.m.nodes[s.peer].rackOrEmpty()
	}
	ws := d.pick(now, d.cfg.Witnesses, avoid, skip, id, live)
	if len(ws) < 2 {
		return nil
	}
	r := &round{id: id, asked: now, witnesses: ws, answers: map[ask]float64{}}
	for i, w := range ws {
		// A control for each witness, a different one where it can be.
		cs := d.pick(now, len(ws)+1, avoid, append(slices.Clone(skip), w), id+int64(i)*7919, live)
		if len(cs) == 0 {
			return nil
		}
		r.controls = append(r.controls, cs[i%len(cs)])
	}
	target := s.node
	if s.peer != "" {
		target = s.peer
	}
	// The suspect probes too when it is an agent that answers (not one
	// reading -hadoop-jmx).
	answers := d.m.nodes[s.node] != nil && now.Sub(d.m.nodes[s.node].reported) < recentEvidence
	for i, w := range ws {
		r.want(w, target)
		r.want(w, r.controls[i])
		if answers {
			r.want(s.node, w)
		}
	}
	if s.peer != "" && answers {
		r.want(s.node, s.peer)
	}
	for _, a := range r.order() {
		req := reports.ProbeRequest{Node: a.node, Blocks: d.cfg.Blocks, Round: id}
		d.queue[a.agent] = append(d.queue[a.agent], req)
		r.probes = append(r.probes, Probe{Agent: a.agent, Node: a.node, Blocks: d.cfg.Blocks, Round: id})
	}
	return r
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
// when it did not.
func (d *Detector) judge(s *suspicion, r *round) Kind {
	norm := func(agent, node string) float64 {
		x := r.answers[ask{agent, node}]
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
	var in, ctl []float64
	for i, w := range r.witnesses {
		a, c := norm(w, target), norm(w, r.controls[i])
		if c > 0 {
			ctl = append(ctl, c)
			if a > 0 {
				in = append(in, a/c)
			}
		}
	}
	ref := median(slices.Clone(ctl))
	// The sender test: the node's blocks to the witnesses over the
	// witnesses' controls.
	var out []float64
	for _, w := range r.witnesses {
		if o := norm(s.node, w); o > 0 && ref > 0 {
			out = append(out, o/ref)
		}
	}
	inSlow, outSlow := d.most(in), d.most(out)
	if s.peer != "" {
		// A link: the sender's blocks to the far end over its own to
		// the third nodes, while it sends and the far end receives
		// normally.
		own := make([]float64, 0, len(r.witnesses))
		for _, w := range r.witnesses {
			if o := norm(s.node, w); o > 0 {
				own = append(own, o)
			}
		}
		ab := norm(s.node, s.peer)
		if len(own) >= 2 && ab > 0 && ab >= d.cfg.Ratio*median(own) && !inSlow && !outSlow {
			return Link
		}
		return ""
	}
	switch {
	case inSlow && outSlow:
		return Both
	case inSlow:
		return Inbound
	case outSlow:
		return Outbound
	}
	return ""
}

// most reports whether at least two, and at least half, of the ratios
// are far above.
func (d *Detector) most(ratios []float64) bool {
	far := 0
	for _, x := range ratios {
		if x >= d.cfg.Ratio {
			far++
		}
	}
	return far >= 2 && 2*far >= len(ratios)
}
