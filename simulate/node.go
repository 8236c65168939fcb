package simulate

import (
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/reports"
)

// node is one simulated DataNode: its random stream, its pauses, and for
// each algorithm the real agent code, PeerMetrics and Scheduler. Only the
// worker that owns the node touches it during a phase.
type node struct {
	id    int
	rng   *rand.Rand
	src   rand.Source
	peers []int32   // remote peers, then the rack-mates
	base  []float64 // per peer slot: latency of one packet before noise
	nRem  int       // remote peers: slots [0, nRem)

	pauses   bool    // this host pauses now and then
	cur, old []pause // pauses begun this tick and the tick before

	// Per algorithm, per slot: the packets of the algorithm's current
	// rolling window not yet handed to its PeerMetrics, and that window's
	// index. They are handed over when the window changes and before a
	// report: the same sums and counts in the same windows as one call a
	// tick, with fewer calls.
	sumMs  [2][]float64
	count  [2][]int64
	window [2]int64
	at     [2]time.Time // a time in that window

	metrics [2]*datanode.PeerMetrics
	windows [2]time.Duration // each algorithm's RollingWindow
	sched   [2]*datanode.Scheduler
	out     [2][]report // reports made this tick
	fast    *fastAgent  // slowpeer's fast path, or nil
}

// pause is one stop of a host, in nanoseconds since the run's start.
type pause struct{ from, to int64 }

// report is one slow-peer report as a heartbeat carries it, and, for an
// algorithm with a diagnosis, the peer latencies sent with it: as the
// agent sends them, the median of each peer's recent block medians.
type report struct {
	at        time.Time
	node      int
	slowPeers []reports.SlowPeer
	latencies []reports.PeerLatency
}

// traffic holds what every node's packets share in one run.
type traffic struct {
	blocksPerTick float64
	packets       int64
	blockSigma    float64 // σ of the log-normal sum of one block's packets
	pareto        distuv.Pareto
	pausesPerTick float64
	tick          int64
}

func newTraffic(cfg Config, f fault) traffic {
	ag := cfg.Slowpeer.Agent
	packets := int64(ag.ProbePackets)
	// Fenton–Wilkinson: the sum of n log-normal packets (σ each) is taken
	// as log-normal with the same mean and variance, σ² = ln(1 + (e^σ² − 1)/n).
	s2 := cfg.JitterSigma * cfg.JitterSigma
	return traffic{
		blocksPerTick: float64(cfg.Tick) / float64(ag.ProbeInterval),
		packets:       packets,
		blockSigma:    math.Sqrt(math.Log1p(math.Expm1(s2) / float64(packets))),
		pareto:        distuv.Pareto{Xm: PauseMin.Seconds(), Alpha: PauseAlpha},
		pausesPerTick: f.pausesPerHour * cfg.Tick.Hours(),
		tick:          int64(cfg.Tick),
	}
}

// drawPauses draws the pauses that begin in the tick at offset o.
func (nd *node) drawPauses(tr *traffic, o int64) {
	nd.old, nd.cur = nd.cur, nd.old[:0]
	if !nd.pauses {
		return
	}
	k := int(distuv.Poisson{Lambda: tr.pausesPerTick, Src: nd.src}.Rand())
	for range k {
		p := tr.pareto
		p.Src = nd.src
		d := int64(min(p.Rand(), PauseMax.Seconds()) * float64(time.Second))
		from := o + nd.rng.Int64N(tr.tick)
		nd.cur = append(nd.cur, pause{from, from + d})
	}
}

// waitNs is how long a block begun at t waits for a pause of the host.
func (nd *node) waitNs(t int64) int64 {
	var w int64
	for _, ps := range [2][]pause{nd.cur, nd.old} {
		for _, p := range ps {
			if t >= p.from && t < p.to {
				w = max(w, p.to-t)
			}
		}
	}
	return w
}

// send draws the blocks this node sends in the tick at offset o (its
// own writes to remote peers and its relays to rack-mates) and records
// them, per peer, for every algorithm's PeerMetrics at the tick's start.
func (nd *node) send(s *sim, at time.Time, o int64, swing float64, on []*incident) {
	tr := &s.traffic
	for a := range nd.metrics {
		if w := int64(o) / int64(nd.windows[a]); w != nd.window[a] {
			nd.flush(a, s.cluster)
			nd.window[a], nd.at[a] = w, at
		}
	}
	if nd.fast != nil {
		nd.sendCoverage(s, o, swing, on)
		return
	}
	jitter := distuv.LogNormal{Mu: -tr.blockSigma * tr.blockSigma / 2, Sigma: tr.blockSigma, Src: nd.src}
	poisson := distuv.Poisson{Lambda: tr.blocksPerTick, Src: nd.src}
	for _, relay := range []bool{false, true} {
		lo, hi := 0, nd.nRem
		if relay {
			lo, hi = nd.nRem, len(nd.peers)
		}
		for range int(poisson.Rand()) {
			slot := lo + nd.rng.IntN(hi-lo)
			t := o + nd.rng.Int64N(tr.tick)
			ms := nd.base[slot] * swing * jitter.Rand()
			ms *= factor(on, s.cluster, nd.id, int(nd.peers[slot]), time.Duration(t))
			// A pause on either end holds the whole block until it ends.
			wait := max(nd.waitNs(t), s.nodes[nd.peers[slot]].waitNs(t))
			ms += float64(wait) / float64(time.Millisecond)
			sum := ms * float64(tr.packets)
			for a := range nd.metrics {
				nd.sumMs[a][slot] += sum
				nd.count[a][slot] += tr.packets
			}
			// The block's packets are one draw, so its median packet is
			// its mean: what the agent's prober keeps of every block it
			// times, for peerLatencies (slowpeer only).
			nd.metrics[0].AddBlockMedianAt(epoch.Add(time.Duration(t)), s.cluster.names[nd.peers[slot]],
				time.Duration(ms*float64(time.Millisecond)))
		}
	}
}

// flush hands algorithm a's held packets to its PeerMetrics.
func (nd *node) flush(a int, c *cluster) {
	for slot, n := range nd.count[a] {
		if n == 0 {
			continue
		}
		total := time.Duration(nd.sumMs[a][slot] * float64(time.Millisecond))
		nd.metrics[a].AddSendPacketsDownstreamAt(nd.at[a], c.names[nd.peers[slot]], total, n)
		nd.sumMs[a][slot], nd.count[a][slot] = 0, 0
	}
}

// beat runs algorithm a's heartbeats in [from, to): the real Scheduler
// says which carry a report, and the real PeerMetrics makes it. lookAgain
// is the delay of the agent's early second look (Scheduler.Named), 0 for
// an algorithm without it (Hadoop's).
func (nd *node) beat(a int, c *cluster, from, to time.Time, withLatencies bool, lookAgain time.Duration) {
	sc, m := nd.sched[a], nd.metrics[a]
	nd.out[a] = nd.out[a][:0]
	fast := a == 0 && nd.fast != nil
	if fast {
		nd.fast.beats = nd.fast.beats[:0]
	}
	for hb := from.Add(sc.Next(from)); hb.Before(to); hb = hb.Add(sc.Next(hb)) {
		if !sc.Begin(hb) {
			sc.Delivered(hb, false)
			if fast {
				nd.fast.beats = append(nd.fast.beats, beatAt{at: int64(hb.Sub(epoch))})
			}
			continue
		}
		nd.flush(a, c)
		d := m.Detect(hb)
		r := report{at: hb, node: nd.id, slowPeers: d.SlowPeers}
		if withLatencies {
			r.latencies = d.PeerLatencies
		}
		nd.out[a] = append(nd.out[a], r)
		if fast {
			nd.fast.beats = append(nd.fast.beats, beatAt{at: int64(hb.Sub(epoch)), report: &r})
		}
		sc.Delivered(hb, true)
		sc.Named(hb, d.SlowPeers, lookAgain)
	}
}
