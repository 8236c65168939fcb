package simulate

import (
	"container/heap"
	"math/rand/v2"
	"slices"
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
	all    []*incident    // every incident, for the requested blocks
	kind   map[string]string
	cost   costs
	from   int64 // the measured part's start, ns since the run's
	// nextStep is the next step of the detector, ns since the run's start.
	nextStep int64
}

// fastAgent is one simulated agent's side of the fast path.
type fastAgent struct {
	src   rand.Source
	rng   *rand.Rand
	cover coverage
	// blocks are the blocks done or in flight not yet carried by a
	// heartbeat: its own and those a probe request asked for.
	blocks []fastBlock
	// beats are the heartbeats of this tick (slowpeer's schedule), with
	// the report each carries, if any.
	beats []beatAt
	own   int64 // its own blocks in the measured part
}

// add takes one of the agent's own blocks, begun at t (ns since the
// run's start) towards peer, of median ms and sum sumMs over its packets.
func (a *fastAgent) add(t int64, peer int32, ms, sumMs float64, measured bool) {
	a.blocks = append(a.blocks, fastBlock{done: t + int64(sumMs*float64(time.Millisecond)), peer: peer, ms: ms})
	if measured {
		a.own++
	}
}

// fastBlock is one probe block: when it was done (ns since the run's
// start), to which peer (node index), its median packet, and the round
// that asked for it (0: the agent's own).
type fastBlock struct {
	done  int64
	peer  int32
	ms    float64
	round int64
}

type beatAt struct {
	at     int64
	report *report
}

// newFastPath returns the fast path of cluster c, with the detector det.
func newFastPath(cfg Config, c *cluster, f *fault, det detector) *fastPath {
	fp := &fastPath{det: det, index: make(map[string]int, c.n), kind: map[string]string{}, from: int64(cfg.Warmup)}
	for i, n := range c.names {
		fp.index[n] = i
	}
	for k := range f.incidents {
		fp.all = append(fp.all, &f.incidents[k])
	}
	return fp
}

// newFastAgent returns node i's side of the fast path.
func newFastAgent(seed uint64, i, peers int) *fastAgent {
	src := rand.NewPCG(seed^0xfa57, uint64(i)+1)
	rng := rand.New(src)
	return &fastAgent{src: src, rng: rng, cover: newCoverage(peers, rng)}
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
	jitter := distuv.LogNormal{Mu: -s.traffic.blockSigma * s.traffic.blockSigma / 2, Sigma: s.traffic.blockSigma, Src: nd.fast.src}
	t := at
	for _, q := range reqs {
		j, ok := fp.index[q.Node]
		if !ok || j == nd.id {
			fp.cost.ignored++
			continue
		}
		for range q.Blocks {
			ms := c.linkBaseMs(nd.id, j) * swing * jitter.Rand() * factor(fp.all, c, nd.id, j, time.Duration(t))
			wait := max(nd.waitNs(t), s.nodes[j].waitNs(t))
			ms += float64(wait) / float64(time.Millisecond)
			t += int64(ms * float64(s.traffic.packets) * float64(time.Millisecond))
			nd.fast.blocks = append(nd.fast.blocks, fastBlock{done: t, peer: int32(j), ms: ms, round: q.Round})
			if at >= fp.from {
				fp.cost.requested++
			}
		}
	}
	if t > at {
		heap.Push(&fp.events, event{at: t, node: nd.id, early: true})
	}
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

// recent takes the blocks done by offset at and returns them as a
// heartbeat's recentLatencies: per peer and round the median of the
// blocks' medians to 4 significant digits, at most
// reports.MaxRecentLatencies.
func (a *fastAgent) recent(c *cluster, at int64) []reports.RecentLatency {
	type key struct {
		peer  int32
		round int64
	}
	var done []fastBlock
	keep := a.blocks[:0]
	for _, b := range a.blocks {
		if b.done <= at {
			done = append(done, b)
		} else {
			keep = append(keep, b)
		}
	}
	a.blocks = keep
	if len(done) == 0 {
		return nil
	}
	slices.SortFunc(done, func(x, y fastBlock) int {
		if x.peer != y.peer {
			return int(x.peer - y.peer)
		}
		if x.round != y.round {
			return int(x.round - y.round)
		}
		return int(x.done - y.done)
	})
	var out []reports.RecentLatency
	var ms []float64
	for i := 0; i < len(done); {
		k := key{done[i].peer, done[i].round}
		ms = ms[:0]
		for ; i < len(done) && (key{done[i].peer, done[i].round}) == k; i++ {
			ms = append(ms, done[i].ms)
		}
		out = append(out, reports.RecentLatency{Node: c.names[k.peer], LatencyMs: roundSignificant(median(ms), 4),
			Blocks: int64(len(ms)), Round: k.round})
	}
	if len(out) > reports.MaxRecentLatencies {
		out = out[len(out)-reports.MaxRecentLatencies:]
	}
	return out
}
