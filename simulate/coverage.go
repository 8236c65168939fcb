package simulate

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/reports"
)

// fastAgent is one simulated agent's side of the fast path: the agent's
// coverage rounds (datanode.Rounds at the pace of Config.Coverage), its
// recent log, and its confirmation budget (datanode.ConfirmBudget).
type fastAgent struct {
	src    rand.Source
	rounds *datanode.Rounds
	slot   map[string]int // peer name → its slot in node.peers
	cover  datanode.Coverage
	sigma  float64 // σ of the log-normal mean of a coverage block's packets
	next   int64   // the next coverage block's start, ns since the run's start
	budget datanode.ConfirmBudget
	busy   int64 // the end of the asked-for blocks running, ns since the run's start
	// blocks are the blocks done or in flight not yet carried by a
	// heartbeat: its own and those a probe request asked for.
	blocks []fastBlock
	// beats are the heartbeats of this tick (slowpeer's schedule), with
	// the report each carries, if any.
	beats []beatAt
	own   int64 // its own blocks in the measured part
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

// newFastAgent returns node nd's side of the fast path in cluster c,
// with the agent's configuration ag.
func newFastAgent(seed uint64, nd *node, c *cluster, ag datanode.Config, jitterSigma float64) *fastAgent {
	src := rand.NewPCG(seed^0xfa57, uint64(nd.id)+1)
	rng := rand.New(src)
	names := make([]string, len(nd.peers))
	a := &fastAgent{src: src, slot: make(map[string]int, len(nd.peers)), cover: ag.Coverage(len(nd.peers)),
		budget: datanode.ConfirmBudget{PerMinute: ag.ProbeConfirmBudget}}
	for k, j := range nd.peers {
		names[k] = c.names[j]
		a.slot[names[k]] = k
	}
	a.rounds = datanode.NewRounds(names, rng)
	s2 := jitterSigma * jitterSigma
	a.sigma = math.Sqrt(math.Log1p(math.Expm1(s2) / float64(a.cover.Packets)))
	a.next = rng.Int64N(int64(a.cover.Every) + 1)
	return a
}

// sendCoverage sends the node's coverage blocks of the tick at offset o,
// one every Coverage.Every to the next peer of its rounds, recorded as
// send records its blocks, and kept for its heartbeats' recent latencies.
func (nd *node) sendCoverage(s *sim, o int64, swing float64, on []*incident) {
	a := nd.fast
	k := float64(a.cover.Packets)
	jitter := distuv.LogNormal{Mu: -a.sigma * a.sigma / 2, Sigma: a.sigma, Src: nd.src}
	for end := o + int64(s.cfg.Tick); a.next < end; a.next += int64(a.cover.Every) {
		t := max(a.next, o)
		slot := a.slot[a.rounds.Next()]
		j := int(nd.peers[slot])
		ms := nd.base[slot] * swing * jitter.Rand() * factor(on, s.cluster, nd.id, j, time.Duration(t))
		ms += float64(max(nd.waitNs(t), s.nodes[j].waitNs(t))) / float64(time.Millisecond)
		sum := ms * k
		for a := range nd.metrics {
			nd.sumMs[a][slot] += sum
			nd.count[a][slot] += int64(k)
		}
		nd.metrics[0].AddBlockMedianAt(epoch.Add(time.Duration(t)), s.cluster.names[j], time.Duration(ms*float64(time.Millisecond)))
		a.blocks = append(a.blocks, fastBlock{done: t + int64(sum*float64(time.Millisecond)), peer: int32(j), ms: ms})
		if t >= int64(s.cfg.Warmup) {
			a.own++
		}
	}
}

// recent takes the blocks done by offset at and returns them as a
// heartbeat's recentLatencies (datanode.RecentLatencies).
func (a *fastAgent) recent(c *cluster, at int64) []reports.RecentLatency {
	var done []datanode.Block
	keep := a.blocks[:0]
	for _, b := range a.blocks {
		if b.done <= at {
			done = append(done, datanode.Block{Peer: c.names[b.peer], End: epoch.Add(time.Duration(b.done)),
				Median: time.Duration(b.ms * float64(time.Millisecond)), Round: b.round})
		} else {
			keep = append(keep, b)
		}
	}
	a.blocks = keep
	if len(done) == 0 {
		return nil
	}
	// Oldest first, as the agent's log holds them.
	sortBlocks(done)
	rs, _ := datanode.RecentLatencies(done)
	return rs
}

// sortBlocks orders blocks by their end, then peer and round.
func sortBlocks(bs []datanode.Block) {
	slices.SortFunc(bs, func(x, y datanode.Block) int {
		return cmp.Or(x.End.Compare(y.End), strings.Compare(x.Peer, y.Peer), cmp.Compare(x.Round, y.Round))
	})
}
