package suspect

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// suspicion is one open (or recently cleared) suspicion.
type suspicion struct {
	target     string
	node, peer string // peer: the receiver of a link
	opened     time.Time
	state      State
	found      finding // the evidence that opened it
	kind       Kind    // the last round's kind, or the rule's
	passed     int     // rounds that found it far above
	cur        *round  // the round asked, nil between rounds
	past       []Probe // the probes of the rounds passed
	next       time.Time
	decided    time.Time // confirmed or cleared at
	lastSlow   time.Time // a confirmed target: its evidence last showed it slow
	rack       string    // a rack suspicion (rackround.go): its rack
	mild       bool      // opened or confirmed by the mild rule (mild.go)
}

// hotness is how a node got far-above evidence since the last Step: as
// the receiver of a latency far above, as its sender, or both.
type hotness uint8

const (
	hotReceiver hotness = 1 << iota
	hotSender
)

// Detector is the fast path's suspicion and confirmation. Safe for
// concurrent use; construct with New. It never reads the clock.
type Detector struct {
	cfg Config

	// mu guards everything below.
	mu        sync.Mutex
	m         *model
	sus       map[string]*suspicion             // by target
	rounds    map[int64]*suspicion              // the suspicions with a round asked, by its id
	queue     map[string][]reports.ProbeRequest // probe requests not yet handed out, by agent
	hot       map[string]hotness                // nodes that got or sent far-above evidence since the last Step
	rackSus   map[string]*suspicion             // the rack suspicions, by rack
	gathering map[string]bool                   // racks a quarter of whose nodes are suspects, at the last Step
	mildQueue []string                          // the nodes the mild rule has yet to look at in its round
	mildBatch int                               // how many a Step
	nextRound int64
	// inMemo holds, during a Step, the evidence towards each node that
	// inbound computed (rules.go); nil outside.
	inMemo map[string]evidence

	opened atomic.Int64 // suspicions opened, ever

	// inMu guards what heartbeats hand over without waiting for d.mu,
	// which a Step holds for milliseconds: the evidence not yet applied
	// (applied, in order, by whatever takes d.mu next but Requests) and
	// the agents that may have probe requests queued. Taken under d.mu,
	// never the other way round.
	inMu     sync.Mutex
	pending  []observation
	pendingN int // the latencies of pending
	waiting  map[string]struct{}
}

// observation is the evidence of one heartbeat, not yet applied.
type observation struct {
	now      time.Time
	reporter string
	rs       []reports.RecentLatency
}

// MaxPending bounds the recent latencies that wait for d.mu: past it,
// Observe applies them all at once (no Step for a long while, or a flood
// of heartbeats). Three seconds of the evidence of 10 000 agents.
const MaxPending = 1 << 15

// New returns a Detector for cfg. It panics if cfg is not valid.
func New(cfg Config) *Detector {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("BUG: suspect.New: %v", err))
	}
	return &Detector{cfg: cfg, m: newModel(cfg.Rack, cfg.MaxPeers), sus: map[string]*suspicion{},
		rounds: map[int64]*suspicion{}, queue: map[string][]reports.ProbeRequest{}, hot: map[string]hotness{},
		waiting: map[string]struct{}{}, rackSus: map[string]*suspicion{}, gathering: map[string]bool{}}
}

// Observe takes the evidence of a heartbeat of reporter at now: its
// recent latencies, already validated (reports.ParseHeartbeat), which it
// keeps (the caller must not change them). Answers to a round go to that
// round; every latency becomes its pair's latest. It does not wait for a
// Step: the evidence is applied, in the order it came, before the next
// Step (or view) looks at the model.
func (d *Detector) Observe(now time.Time, reporter string, rs []reports.RecentLatency) {
	if len(rs) == 0 {
		return
	}
	d.inMu.Lock()
	d.pending = append(d.pending, observation{now, reporter, rs})
	d.pendingN += len(rs)
	full := d.pendingN >= MaxPending
	d.inMu.Unlock()
	if full {
		d.mu.Lock()
		d.applyPending()
		d.mu.Unlock()
	}
}

// applyPending applies the evidence Observe kept. The caller holds d.mu.
func (d *Detector) applyPending() {
	d.inMu.Lock()
	ps := d.pending
	d.pending, d.pendingN = nil, 0
	d.inMu.Unlock()
	for _, p := range ps {
		d.observe(p.now, p.reporter, p.rs)
	}
}

// observe applies the evidence of one heartbeat. The caller holds d.mu.
func (d *Detector) observe(now time.Time, reporter string, rs []reports.RecentLatency) {
	me := d.m.node(reporter)
	me.reported = now
	for _, r := range rs {
		if r.Node == reporter {
			continue
		}
		if r.Round > 0 {
			if s := d.rounds[r.Round]; s != nil {
				s.cur.answer(reporter, r.Node, r.LatencyMs)
			}
		}
		o := d.m.record(now, me, r.Node, r.LatencyMs)
		if e := d.m.level(o.rel); e <= 0 || d.farAbove(r.LatencyMs, e) {
			d.hot[reporter] |= hotSender
			d.hot[r.Node] |= hotReceiver
		}
	}
}

// Requests returns the probe requests to hand agent in the reply to its
// heartbeat at now (at most reports.MaxProbeRequests, no node twice),
// and forgets them: each is handed out once.
func (d *Detector) Requests(now time.Time, agent string) []reports.ProbeRequest {
	d.inMu.Lock()
	_, ok := d.waiting[agent]
	d.inMu.Unlock()
	if !ok {
		return nil // most heartbeats: without waiting for a Step
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queue[agent]
	if len(q) == 0 {
		d.setWaiting(agent, false)
		return nil
	}
	var out, keep []reports.ProbeRequest
	for _, p := range q {
		s := d.rounds[p.Round]
		switch {
		case s == nil: // judged or dropped meanwhile
		case len(out) == reports.MaxProbeRequests || slices.ContainsFunc(out, func(r reports.ProbeRequest) bool { return r.Node == p.Node }):
			keep = append(keep, p)
		default:
			out = append(out, p)
			for i := range s.cur.probes {
				if s.cur.probes[i].Agent == agent && s.cur.probes[i].Node == p.Node {
					s.cur.probes[i].Handed = true
				}
			}
		}
	}
	if len(keep) == 0 {
		delete(d.queue, agent)
		d.setWaiting(agent, false)
	} else {
		d.queue[agent] = keep
	}
	return out
}

// setWaiting notes whether agent may have probe requests queued. The
// caller holds d.mu.
func (d *Detector) setWaiting(agent string, queued bool) {
	d.inMu.Lock()
	if queued {
		d.waiting[agent] = struct{}{}
	} else {
		delete(d.waiting, agent)
	}
	d.inMu.Unlock()
}

// Forget drops everything known of node: its pairs, the suspicions of it
// or of its links, and the requests to it.
func (d *Detector) Forget(node string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.applyPending()
	d.m.forget(node)
	delete(d.queue, node)
	d.setWaiting(node, false)
	delete(d.hot, node)
	for t, s := range d.sus {
		if s.node == node || s.peer == node {
			d.drop(t)
		}
	}
}

// drop deletes a suspicion and its round. The caller holds d.mu.
func (d *Detector) drop(target string) {
	if s := d.sus[target]; s != nil && s.cur != nil {
		delete(d.rounds, s.cur.id)
	}
	delete(d.sus, target)
}

// Step is the periodic work at now (every 500 ms): it updates the
// model's levels, judges the rounds that are complete or timed out,
// asks the next ones, opens suspicions on the evidence since the last
// Step and returns the verdicts, sorted by target: each confirmation and
// each clearing once. A confirmed node's kind may become Rack later, when
// the rest of its rack is suspected: Confirmed tells.
// live reports whether a node may be judged (live and not excluded): the
// others are never suspects, witnesses or controls.
func (d *Detector) Step(now time.Time, live func(node string) bool) []Verdict {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.applyPending()
	d.m.expireSome(now, d.cfg.Learn)
	d.m.refresh(now)
	d.inMemo = map[string]evidence{}
	defer func() { d.inMemo = nil }()
	var vs []Verdict
	var confirmed []*suspicion
	verdict := func(s *suspicion, confirmed bool) {
		vs = append(vs, Verdict{Target: s.target, Kind: s.kind, Confirmed: confirmed, Since: s.opened, At: now})
	}
	for _, t := range d.targets() {
		s := d.sus[t]
		switch {
		case !live(s.node) || s.peer != "" && !live(s.peer):
			if s.state != Confirmed && s.state != Cleared {
				d.clear(now, s)
				verdict(s, false)
			}
			d.drop(t)
		case s.peer != "" && s.state == Suspected && (d.nodeSuspect(s.node) || d.nodeSuspect(s.peer)):
			// An end of the link is a suspect itself (a slow rack's
			// node whose own blocks came late): its rounds tell more.
			d.drop(t)
		case s.state == Cleared:
			if now.Sub(s.decided) >= ClearedFor {
				d.drop(t)
			}
		case s.state == Confirmed:
			if !s.mild && d.stillSlow(now, s) {
				s.lastSlow = now
			} else if now.Sub(s.lastSlow) >= HoldFor {
				d.drop(t)
			}
		case s.cur != nil:
			if !s.cur.complete() && now.Sub(s.cur.asked) < RoundTimeout {
				continue
			}
			k := d.judge(s, s.cur)
			d.endRound(s)
			if k == "" {
				d.clear(now, s)
				verdict(s, false)
				continue
			}
			s.kind, s.passed, s.next = k, s.passed+1, now.Add(d.cfg.RoundGap)
			if s.passed >= d.cfg.Rounds {
				s.state, s.decided, s.lastSlow = Confirmed, now, now
				confirmed = append(confirmed, s)
			}
		case s.mild, d.heldByRack(now, s):
		case !now.Before(s.next):
			if s.cur = d.plan(now, s, live); s.cur == nil {
				d.clear(now, s)
				verdict(s, false)
				continue
			}
			s.state = Confirming
			d.rounds[s.cur.id] = s
		}
	}
	d.open(now, live)
	mild, cleared := d.mildStep(now, live)
	for _, s := range cleared {
		verdict(s, false)
	}
	confirmed = append(confirmed, mild...)
	confirmed = append(confirmed, d.stepRacks(now, live)...)
	d.racks()
	for _, s := range confirmed {
		verdict(s, true)
	}
	slices.SortFunc(vs, func(a, b Verdict) int { return strings.Compare(a.Target, b.Target) })
	return vs
}

// targets returns the suspicions' targets, sorted. The caller holds d.mu.
func (d *Detector) targets() []string {
	ts := make([]string, 0, len(d.sus))
	for t := range d.sus {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

// clear marks s cleared at now. The caller holds d.mu.
func (d *Detector) clear(now time.Time, s *suspicion) {
	d.endRound(s)
	s.state, s.decided = Cleared, now
}

// endRound ends the round s has asked, if any: its probes join the
// past ones and its answers are no longer awaited. The caller holds d.mu.
func (d *Detector) endRound(s *suspicion) {
	if s.cur == nil {
		return
	}
	s.past = append(s.past, s.cur.probes...)
	delete(d.rounds, s.cur.id)
	s.cur = nil
}

// open judges the nodes that got far-above evidence and opens the
// suspicions they warrant. The caller holds d.mu.
func (d *Detector) open(now time.Time, live func(string) bool) {
	names := make([]string, 0, len(d.hot))
	for n := range d.hot {
		names = append(names, n)
	}
	hot := maps.Clone(d.hot)
	clear(d.hot)
	slices.Sort(names)
	after := func(target string) time.Time {
		if s := d.sus[target]; s != nil && s.state == Cleared {
			return s.decided
		}
		return time.Time{}
	}
	for _, name := range names {
		if !live(name) {
			continue
		}
		for _, f := range d.rules(now, name, hot[name], after) {
			// A strong suspicion takes over a mild one not confirmed.
			if s := d.sus[f.target]; s != nil && s.state != Cleared && !(s.mild && s.state != Confirmed) || f.peer != "" && !live(f.peer) {
				continue
			}
			if f.peer != "" && (d.nodeSuspect(f.node) || d.nodeSuspect(f.peer)) {
				continue
			}
			d.opened.Add(1)
			d.sus[f.target] = &suspicion{target: f.target, node: f.node, peer: f.peer, opened: now,
				state: Suspected, found: f, kind: f.rule, next: now.Add(d.cfg.RoundGap)}
			if f.peer == "" {
				d.dropLinks(f.node)
			}
		}
	}
}

// nodeSuspect reports whether name has a node suspicion not cleared.
// The caller holds d.mu.
func (d *Detector) nodeSuspect(name string) bool {
	s := d.sus[name]
	return s != nil && s.peer == "" && s.state != Cleared
}

// dropLinks drops the suspicions of node's links whose rounds have not
// begun: a suspicion of the node itself tells more, and their rounds
// would spend the agents' confirmation budget. A link whose round is
// asked keeps it: the round tells a slow end from a slow link (its
// witnesses test the far end, its sender's other peers the sender), and
// a node suspicion opened on noise beside the link's own latency (one
// other reporter far above the far end) would otherwise drop the link
// at every turn.
func (d *Detector) dropLinks(node string) {
	for t, s := range d.sus {
		if s.peer != "" && (s.node == node || s.peer == node) && s.state == Suspected {
			d.drop(t)
		}
	}
}

// racks turns the confirmed nodes of a rack, at least three quarters of
// whose known nodes (at least two) are node suspects, into kind Rack,
// whatever direction their rounds found: a rack's node whose round came
// short of answers (the agents' budgets are busy with the whole rack) is
// not a healthy one, nor a sender alone. The caller holds d.mu.
func (d *Detector) racks() {
	if d.cfg.Rack == nil {
		return
	}
	suspects, count := map[string]int{}, map[string]int{}
	for name, n := range d.m.nodes {
		if n.rack == "" {
			continue
		}
		count[n.rack]++
		if s := d.sus[name]; s != nil && s.state != Cleared && s.peer == "" {
			suspects[n.rack]++
		}
	}
	for _, s := range d.sus {
		if s.state != Confirmed || s.peer != "" || s.kind == Rack {
			continue
		}
		if r := d.m.nodes[s.node].rackOrEmpty(); r != "" && count[r] >= 2 && 4*suspects[r] >= 3*count[r] {
			s.kind = Rack
		}
	}
}

// Opened returns the number of suspicions opened so far.
func (d *Detector) Opened() int64 { return d.opened.Load() }

// Pairs returns the pairs the model holds once the evidence given so far
// is applied, at most Config.MaxPeers for each reporter, and how many
// pairs a newer one of their reporter replaced so far.
func (d *Detector) Pairs() (held int, replaced int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.applyPending()
	return d.m.pairs, d.m.replaced
}
