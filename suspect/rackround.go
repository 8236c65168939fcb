package suspect

import (
	"cmp"
	"hash/fnv"
	"slices"
	"time"
)

// rackMembers is how many of a rack's nodes each witness of a rack round
// probes.
const rackMembers = 4

// A rack whose known nodes are mostly node suspects at once is confirmed
// as one target: one round asks Config.Witnesses agents outside the rack
// for a few blocks to several of its nodes each and to a control outside
// it, instead of a round for each of its nodes. A rack of 40 suspected at
// once asked some 40 × 16 requests of its witnesses and their
// confirmation budgets turned most of them down; a rack round asks 20.
//
// rackSuspects returns, for each rack at least three quarters of whose
// known nodes (at least two) are node suspects, its suspects, sorted;
// and it notes the racks at least a quarter of whose nodes (at least two)
// are (d.gathering): one suspect of a rack of three is no rack.
// The caller holds d.mu.
func (d *Detector) rackSuspects() map[string][]string {
	clear(d.gathering)
	if d.cfg.Rack == nil {
		return nil
	}
	count, sus := map[string]int{}, map[string][]string{}
	for name, n := range d.m.nodes {
		if n.rack == "" {
			continue
		}
		count[n.rack]++
		if s := d.sus[name]; s != nil && s.state != Cleared && s.peer == "" {
			sus[n.rack] = append(sus[n.rack], name)
		}
	}
	out := map[string][]string{}
	for r, ns := range sus {
		if count[r] < 2 {
			continue
		}
		if len(ns) >= 2 && 4*len(ns) >= count[r] {
			d.gathering[r] = true
		}
		if 4*len(ns) >= 3*count[r] {
			slices.Sort(ns)
			out[r] = ns
		}
	}
	return out
}

// rackWait is how long a node suspicion of a rack a quarter of whose
// nodes are suspects waits for the rest before it asks a round of its
// own: the nodes of a slow rack are suspected within seconds of each
// other, and their own rounds would spend the witnesses' budgets.
const rackWait = 10 * time.Second

// heldByRack reports whether s, a node suspicion, waits for its rack's
// round rather than asking its own: its rack has a rack suspicion, or a
// quarter of its nodes are suspects and s opened less than rackWait ago.
// The caller holds d.mu.
func (d *Detector) heldByRack(now time.Time, s *suspicion) bool {
	if s.peer != "" || d.cfg.Rack == nil {
		return false
	}
	r := d.m.nodes[s.node].rackOrEmpty()
	if rs := d.rackSus[r]; rs != nil && rs.state != Cleared {
		return true
	}
	return d.gathering[r] && now.Sub(s.opened) < rackWait
}

// stepRacks opens, asks, judges and ends the rack suspicions at now, and
// returns the node suspicions it confirmed (of kind Rack). The caller
// holds d.mu.
func (d *Detector) stepRacks(now time.Time, live func(string) bool) []*suspicion {
	held := d.rackSuspects()
	for r := range held {
		if d.rackSus[r] == nil {
			d.rackSus[r] = &suspicion{target: "rack:" + r, rack: r, opened: now, state: Suspected, kind: Rack, next: now}
		}
	}
	racks := make([]string, 0, len(d.rackSus))
	for r := range d.rackSus {
		racks = append(racks, r)
	}
	slices.Sort(racks)
	var confirmed []*suspicion
	for _, r := range racks {
		rs := d.rackSus[r]
		members, mostly := held[r]
		switch {
		case rs.state == Cleared:
			if now.Sub(rs.decided) >= ClearedFor {
				delete(d.rackSus, r)
			}
			continue
		case rs.state == Confirmed:
			if !d.rackConfirmedLeft(r) {
				delete(d.rackSus, r)
				continue
			}
		case !mostly:
			d.dropRack(r)
			continue
		}
		// The rack's own node suspicions wait for its rounds.
		for _, m := range members {
			if s := d.sus[m]; s.cur != nil && s.state != Confirmed {
				d.endRound(s)
			}
		}
		if rs.state != Confirmed {
			switch {
			case rs.cur != nil:
				if !rs.cur.complete() && now.Sub(rs.cur.asked) < RoundTimeout {
					continue
				}
				ok := d.judgeRack(rs, rs.cur)
				d.endRound(rs)
				if !ok {
					rs.state, rs.decided = Cleared, now
					continue
				}
				rs.passed, rs.next = rs.passed+1, now.Add(d.cfg.RoundGap)
				if rs.passed < d.cfg.Rounds {
					continue
				}
				rs.state, rs.decided = Confirmed, now
			case !now.Before(rs.next):
				if rs.cur = d.planRack(now, rs, members, live); rs.cur == nil {
					rs.state, rs.decided = Cleared, now
				} else {
					rs.state = Confirming
					d.rounds[rs.cur.id] = rs
				}
				continue
			default:
				continue
			}
		}
		// Confirmed: so is each node suspicion of the rack, now and as
		// it opens.
		for _, m := range members {
			if s := d.sus[m]; s.state != Confirmed {
				s.state, s.kind, s.passed, s.decided, s.lastSlow = Confirmed, Rack, rs.passed, now, now
				confirmed = append(confirmed, s)
			}
		}
	}
	return confirmed
}

// rackConfirmedLeft reports whether a node of rack r is still a confirmed
// suspect. The caller holds d.mu.
func (d *Detector) rackConfirmedLeft(r string) bool {
	for _, s := range d.sus {
		if s.state == Confirmed && s.peer == "" && d.m.nodes[s.node].rackOrEmpty() == r {
			return true
		}
	}
	return false
}

// dropRack deletes the rack suspicion of r and its round. The caller
// holds d.mu.
func (d *Detector) dropRack(r string) {
	if rs := d.rackSus[r]; rs != nil && rs.cur != nil {
		delete(d.rounds, rs.cur.id)
	}
	delete(d.rackSus, r)
}

// planRack builds the next round of the rack suspicion rs, whose node
// suspects are members: witnesses outside the rack that measure its
// nodes, other racks' least loaded first, each probe up to rackMembers
// of the nodes it measures (the suspects first, spread over the
// witnesses) and a control outside the rack. Nil when fewer than two
// witnesses can be asked.
func (d *Detector) planRack(now time.Time, rs *suspicion, members []string, live func(string) bool) *round {
	d.nextRound++
	id := d.nextRound
	inRack := func(n string) bool { return d.m.nodes[n].rackOrEmpty() == rs.rack }
	measured := map[string][]string{} // witness → the rack's nodes it measures
	var rack []string
	for name, n := range d.m.nodes {
		if n.rack == rs.rack {
			rack = append(rack, name)
		}
	}
	slices.Sort(rack)
	for _, m := range rack {
		for _, w := range d.m.reportersOf(d.m.nodes[m]) {
			if !inRack(w) && d.eligible(now, w, live) {
				measured[w] = append(measured[w], m)
			}
		}
	}
	type cand struct {
		name        string
		nodes, load int
		order       uint32
	}
	order := func(name string, seed int64) uint32 {
		h := fnv.New32a()
		h.Write([]byte(name))
		h.Write([]byte{byte(seed), byte(seed >> 8), byte(seed >> 16)})
		return h.Sum32()
	}
	var cs []cand
	for w, ms := range measured {
		cs = append(cs, cand{w, min(len(ms), rackMembers), len(d.queue[w]), order(w, id)})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(-cmp.Compare(a.nodes, b.nodes), cmp.Compare(a.load, b.load), cmp.Compare(a.order, b.order), cmp.Compare(a.name, b.name))
	})
	r := &round{id: id, asked: now, answers: map[ask]float64{}}
	used := map[string]int{} // how many witnesses probe each node
	for _, c := range cs {
		if len(r.witnesses) == d.cfg.Witnesses {
			break
		}
		ctl := d.pick(now, d.m.peersOf(d.m.nodes[c.name]), 1, rs.rack, append(slices.Clone(rack), c.name), id+int64(len(r.witnesses)+1)*7919, live)
		if len(ctl) == 0 || inRack(ctl[0]) {
			continue
		}
		ms := slices.Clone(measured[c.name])
		slices.SortFunc(ms, func(a, b string) int {
			return cmp.Or(-cmp.Compare(bool2int(slices.Contains(members, a)), bool2int(slices.Contains(members, b))),
				cmp.Compare(used[a], used[b]), cmp.Compare(order(a, id), order(b, id)), cmp.Compare(a, b))
		})
		ms = ms[:min(rackMembers, len(ms))]
		for _, m := range ms {
			used[m]++
		}
		r.witnesses, r.controls = append(r.witnesses, c.name), append(r.controls, ctl[0])
		r.members = append(r.members, ms)
	}
	if len(r.witnesses) < 2 {
		return nil
	}
	for i, w := range r.witnesses {
		for _, m := range r.members[i] {
			r.want(w, m)
		}
		r.want(w, r.controls[i])
	}
	d.enqueue(r)
	return r
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// judgeRack reports whether a rack round found the rack far above: for
// at least two, and at least half, of its witnesses, the median of their
// blocks to the rack's nodes far above their blocks to their controls.
func (d *Detector) judgeRack(rs *suspicion, r *round) bool {
	var cs []comparison
	for i, w := range r.witnesses {
		var norm, raw []float64
		for _, m := range r.members[i] {
			if x := r.answers[ask{w, m}]; x > 0 {
				raw = append(raw, x)
				if e := d.m.expected(w, m); e > 0 {
					x /= e
				}
				norm = append(norm, x)
			}
		}
		c := r.answers[ask{w, r.controls[i]}]
		if len(norm) == 0 || c <= 0 {
			continue
		}
		cn := c
		if e := d.m.expected(w, r.controls[i]); e > 0 {
			cn /= e
		}
		cs = append(cs, comparison{median(norm) / cn, median(raw) - c})
	}
	return d.most(cs)
}
