package simulate

import (
	"container/heap"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// FastStep is how often the service steps its fast path
// (suspect.Detector.Step), as the service does.
const FastStep = 500 * time.Millisecond

// detector is the service's fast path: suspect.Detector.
type detector interface {
	Observe(now time.Time, reporter string, rs []reports.RecentLatency)
	Requests(now time.Time, agent string) []reports.ProbeRequest
	Step(now time.Time, live func(node string) bool) []suspect.Verdict
	Confirmed(now time.Time) []suspect.Verdict
}

// fastPath is the fast path of slowpeer's side of a run: every agent's
// recent latencies on every heartbeat, the service's detector, its
// probe requests answered by the simulated agents at once with an early
// heartbeat, and the verdicts admitted to the slow sets (service.fast).
// The events (heartbeats, the detector's steps) are taken in the order of
// their time, one at a time, so a run does not depend on the workers.
type fastPath struct {
	det    detector
	events events
	index  map[string]int // node name → index
	// answerAny: the agents obey requests for any node (Config.AnswerAnyNode).
	answerAny bool
	all       []*incident // every incident, for the requested blocks
	kind      map[string]string
	cost      costs
	from      int64 // the measured part's start, ns since the run's
	// nextStep is the next step of the detector, ns since the run's start.
	nextStep int64
}

// newFastPath returns the fast path of cluster c, with the detector det.
func newFastPath(cfg Config, c *cluster, f *fault, det detector) *fastPath {
	fp := &fastPath{det: det, kind: map[string]string{}, from: int64(cfg.Warmup), answerAny: cfg.AnswerAnyNode,
		index: make(map[string]int, c.n)}
	for i, n := range c.names {
		fp.index[n] = i
	}
	for k := range f.incidents {
		fp.all = append(fp.all, &f.incidents[k])
	}
	return fp
}

// event is a heartbeat of a node (an early one when early) or, with node
// -1, a step of the detector.
type event struct {
	at    int64
	node  int
	early bool
}

// events is a heap of events by time, then steps first, then node.
type events []event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].node < e[j].node
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// tick runs the fast path's events of the tick [o, o+tick): the agents'
// heartbeats (and the early ones of the probe requests), and the
// detector's steps. The tick's blocks are drawn already.
func (fp *fastPath) tick(s *sim, sv *service, o int64, swing float64) {
	for _, nd := range s.nodes {
		for _, b := range nd.fast.beats {
			heap.Push(&fp.events, event{at: b.at, node: nd.id})
		}
	}
	end := o + int64(s.cfg.Tick)
	for ; fp.nextStep < end; fp.nextStep += int64(FastStep) {
		heap.Push(&fp.events, event{at: fp.nextStep, node: -1})
	}
	next := make([]int, len(s.nodes)) // each node's next regular heartbeat of the tick
	for len(fp.events) > 0 && fp.events[0].at < end {
		e := heap.Pop(&fp.events).(event)
		now := epoch.Add(time.Duration(e.at))
		if e.node < 0 {
			fp.step(now, sv)
			continue
		}
		nd := s.nodes[e.node]
		var r *report
		if !e.early {
			r = nd.fast.beats[next[e.node]].report
			next[e.node]++
		}
		fp.beat(s, nd, e.at, r, swing)
	}
}

// beat is node nd's heartbeat at offset at: it carries the blocks done
// since its last (report r besides, when not nil), and the reply's probe
// requests are run at once, their blocks sent with an early heartbeat.
func (fp *fastPath) beat(s *sim, nd *node, at int64, r *report, swing float64) {
	c := s.cluster
	now := epoch.Add(time.Duration(at))
	name := c.names[nd.id]
	rs := nd.fast.recent(c, at)
	fp.cost.heartbeat(at >= fp.from, name, r, rs)
	fp.det.Observe(now, name, rs)
	reqs := fp.det.Requests(now, name)
	if len(reqs) == 0 {
		return
	}
	// The agent's rule (datanode's confirmer): requests for peers it
	// probes, within its budget, run at once, one block after another,
	// ProbePackets packets each, after those asked before; then an early
	// heartbeat carries them. Their packets' share of the pace delays the
	// coverage blocks (from the next tick on).
	a := nd.fast
	packets := s.traffic.packets
	jitter := distuv.LogNormal{Mu: -s.traffic.blockSigma * s.traffic.blockSigma / 2, Sigma: s.traffic.blockSigma, Src: a.src}
	t, blocks := max(at, a.busy), 0
	for _, q := range reqs {
		slot, known := a.slot[q.Node]
		j, inCluster := fp.index[q.Node]
		if !(known || fp.answerAny && inCluster && j != nd.id) || !a.budget.Take(now, q.Blocks) {
			fp.cost.ignored++
			continue
		}
		base := c.linkBaseMs(nd.id, j)
		if known {
			base = nd.base[slot]
		}
		for range q.Blocks {
			ms := base * swing * jitter.Rand() * factor(fp.all, c, nd.id, j, time.Duration(t))
			ms += float64(max(nd.waitNs(t), s.nodes[j].waitNs(t))) / float64(time.Millisecond)
			t += int64(ms * float64(packets) * float64(time.Millisecond))
			a.blocks = append(a.blocks, fastBlock{done: t, peer: int32(j), ms: ms, round: q.Round})
			blocks++
		}
	}
	if blocks == 0 {
		return
	}
	if at >= fp.from {
		fp.cost.requested += int64(blocks)
	}
	a.busy = t
	perPacket := int64(a.cover.Every) / int64(a.cover.Packets)
	a.next = max(a.next, t) + int64(blocks)*packets*perPacket
	heap.Push(&fp.events, event{at: t, node: nd.id, early: true})
}

// step is the detector's step at now: verdicts are admitted to the slow
// sets, and so is every target it still holds confirmed.
func (fp *fastPath) step(now time.Time, sv *service) {
	for _, v := range fp.det.Step(now, func(string) bool { return true }) {
		if v.Confirmed {
			fp.admit(now, sv, v)
		}
	}
	for _, v := range fp.det.Confirmed(now) {
		fp.admit(now, sv, v)
	}
	members := append(sv.fast.nodes.Nodes(), sv.fast.links.Nodes()...)
	sv.fast.score.observe(now, members, func(e string) string {
		if k := fp.kind[e]; k != "" {
			return k
		}
		return sv.lastKinds(e)
	})
}

// admit puts v's target in the slow set of nodes or links at now.
func (fp *fastPath) admit(now time.Time, sv *service, v suspect.Verdict) {
	fp.kind[v.Target] = string(v.Kind)
	if strings.HasPrefix(v.Target, "link:") {
		sv.fast.links.Admit(now, v.Target)
		return
	}
	sv.fast.nodes.Admit(now, v.Target)
}
