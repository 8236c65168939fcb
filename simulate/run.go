package simulate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/suspect"
	"github.com/slowpeer/slowpeer/tracker"
)

// Result is the outcome of one run, in the JSON shape of
// `slowpeer simulate -json`.
type Result struct {
	Nodes    int      `json:"nodes"`
	Scenario Scenario `json:"scenario"`
	Seed     uint64   `json:"seed"`
	// NodeDays is the measured part's nodes × days.
	NodeDays float64 `json:"nodeDays"`
	// Slowpeer are slowpeer's figures at its defaults, Hadoop those of
	// Hadoop's algorithm at Hadoop's defaults, on the same packets.
	Slowpeer Metrics `json:"slowpeer"`
	Hadoop   Metrics `json:"hadoop"`
	// WithoutFastPath, with the fast path (Config.FastPath), are
	// slowpeer's figures without it on the same packets: today's path of
	// reports, diagnosis and slow set alone.
	WithoutFastPath *Metrics `json:"withoutFastPath,omitempty"`
	// Cost is what the fast path cost, with it.
	Cost *Cost `json:"cost,omitempty"`

	// Truth lists what was at fault (not in the JSON contract).
	Truth []string `json:"-"`
}

// readBefore is how long before the fault the services begin to be read.
const readBefore = 30 * time.Minute

// epoch is where synthetic time begins: a Monday at midnight.
var epoch = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// sim is one run in progress.
type sim struct {
	cfg      Config
	cluster  *cluster
	fault    fault
	traffic  traffic
	nodes    []*node
	services [2]*service
	fast     *fastPath // slowpeer's fast path, or nil
	workers  int
	swing    float64 // phase of the daily load swing, in radians
	// reading is the read of the services still running (read): it must
	// end before the services take the next reports.
	reading sync.WaitGroup
}

// Run simulates cfg and returns its figures. progress, when not nil, is
// called after every tick with the ticks done and the ticks in all. Run
// stops with ctx's error, between two ticks, once ctx is done.
func Run(ctx context.Context, cfg Config, progress func(done, total int)) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, fmt.Errorf("simulate: %w", err)
	}
	if isDisk(cfg.Scenario) {
		return runDisks(ctx, cfg, progress)
	}
	s, err := newSim(cfg)
	if err != nil {
		return Result{}, err
	}
	measured := time.Duration(cfg.Hours * float64(time.Hour))
	ticks := int((cfg.Warmup + measured + cfg.ReadInterval - 1) / cfg.ReadInterval * (cfg.ReadInterval / cfg.Tick))
	for k := range ticks {
		if err := ctx.Err(); err != nil {
			s.reading.Wait()
			return Result{}, fmt.Errorf("simulate: %w", err)
		}
		if err := s.tick(k); err != nil {
			s.reading.Wait()
			return Result{}, err
		}
		if progress != nil {
			progress(k+1, ticks)
		}
	}
	s.reading.Wait()
	hours := float64(time.Duration(ticks)*cfg.Tick-cfg.Warmup) / float64(time.Hour)
	end := epoch.Add(time.Duration(ticks) * cfg.Tick)
	r := Result{Nodes: cfg.Nodes, Scenario: cfg.Scenario, Seed: cfg.Seed, Truth: s.fault.truth,
		NodeDays: float64(cfg.Nodes) * hours / 24,
		Slowpeer: s.services[0].score.metrics(hours, end), Hadoop: s.services[1].score.metrics(hours, end)}
	if s.fast != nil {
		without := r.Slowpeer
		r.Slowpeer, r.WithoutFastPath = s.services[0].fast.score.metrics(hours, end), &without
		for _, nd := range s.nodes {
			s.fast.cost.own += nd.fast.own
		}
		r.Cost = s.fast.cost.cost(float64(cfg.Nodes) * hours)
	}
	if cfg.Scenario == Healthy {
		return withHealthyDisks(ctx, cfg, r)
	}
	return r, nil
}

func newSim(cfg Config) (*sim, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x51a7))
	c, err := newCluster(cfg, rng)
	if err != nil {
		return nil, err
	}
	s := &sim{cfg: cfg, cluster: c, workers: cfg.Workers, swing: 2 * math.Pi * rng.Float64()}
	if s.workers == 0 {
		s.workers = 2
	}
	s.fault = newFault(cfg, c, rng)
	s.traffic = newTraffic(cfg, s.fault)
	onset := epoch.Add(cfg.Warmup)
	for a, alg := range []Algorithm{cfg.Slowpeer, cfg.Hadoop} {
		if s.services[a], err = newService(alg, c, newScore(onset, &s.fault)); err != nil {
			return nil, err
		}
	}
	if cfg.FastPath != nil {
		fc := *cfg.FastPath
		fc.Rack = c.topology.Rack
		s.fast = newFastPath(cfg, c, &s.fault, suspect.New(fc))
		set := cfg.Slowpeer.SlowSet
		s.services[0].fast = &fastSets{nodes: tracker.NewSlowSet(set), links: tracker.NewSlowSet(tracker.LinkSlowSetConfig(set)),
			score: newScore(onset, &s.fault)}
	}
	s.nodes = make([]*node, c.n)
	for i := range c.n {
		s.nodes[i] = s.newNode(i)
		if s.fast != nil {
			s.nodes[i].fast = newFastAgent(cfg.Seed, s.nodes[i], c, cfg.Slowpeer.Agent, cfg.JitterSigma)
		}
	}
	return s, nil
}

// newNode makes node i with its own random stream, so that a run does
// not depend on which worker draws what.
func (s *sim) newNode(i int) *node {
	c, cfg := s.cluster, s.cfg
	src := rand.NewPCG(cfg.Seed, uint64(i)+1)
	nd := &node{id: i, src: src, rng: rand.New(src)}
	for _, j := range c.remote[i] {
		nd.peers = append(nd.peers, j)
	}
	nd.nRem = len(nd.peers)
	for _, j := range c.racks[c.rackOf[i]] {
		if int(j) != i {
			nd.peers = append(nd.peers, j)
		}
	}
	for _, j := range nd.peers {
		nd.base = append(nd.base, c.linkBaseMs(i, int(j)))
	}
	for a, alg := range []Algorithm{cfg.Slowpeer, cfg.Hadoop} {
		nd.sumMs[a], nd.count[a] = make([]float64, len(nd.peers)), make([]int64, len(nd.peers))
		nd.windows[a], nd.window[a] = alg.Agent.RollingWindow, -1
	}
	nd.pauses = nd.rng.Float64() < s.fault.pauseShare
	for a, alg := range []Algorithm{cfg.Slowpeer, cfg.Hadoop} {
		nd.metrics[a] = datanode.NewPeerMetrics(alg.Agent)
		// Agents start at random times within one report interval.
		start := epoch.Add(time.Duration(nd.rng.Int64N(int64(alg.Agent.ReportInterval))))
		nd.sched[a] = datanode.NewScheduler(start, alg.Agent.HeartbeatInterval, alg.Agent.ReportInterval,
			alg.Agent.MaxRetryBackoff, nd.rng.Float64)
	}
	return nd
}

// tick runs tick k: pauses, heartbeats with their reports, the service
// taking them, the tick's packets, and beside the packets one read of
// each service. The read (slowpeer's diagnosis of the whole matrix) uses
// only the services, which nothing else touches until they take the next
// tick's reports, so it runs while the nodes draw their packets and their
// next heartbeats: the result is the same.
func (s *sim) tick(k int) error {
	tick := s.cfg.Tick
	o := int64(k) * int64(tick)
	at := epoch.Add(time.Duration(o))
	end := at.Add(tick)
	s.each(func(nd *node) { nd.drawPauses(&s.traffic, o) })
	s.each(func(nd *node) {
		for a, sv := range s.services {
			// slowpeer's agent (the one with peerLatencies) looks again
			// early at a newly named slow peer; Hadoop's does not.
			var lookAgain time.Duration
			if sv.matrix != nil {
				lookAgain = sv.alg.Agent.RollingSpan()
			}
			nd.beat(a, s.cluster, at, end, sv.matrix != nil, lookAgain)
		}
	})
	s.reading.Wait()
	for a, sv := range s.services {
		for _, nd := range s.nodes {
			sv.pending = append(sv.pending, nd.out[a]...)
		}
		if err := sv.apply(s.cluster); err != nil {
			return err
		}
	}
	// The services are read from half an hour before the fault on, time
	// for the slow sets to settle; before, the reports are only stored.
	read := func() {
		if time.Duration(o)+tick > s.cfg.Warmup-readBefore && (time.Duration(o)+tick)%s.cfg.ReadInterval == 0 {
			for _, sv := range s.services {
				s.reading.Go(func() {
					members, kind := sv.step(end, s.cluster)
					sv.score.observe(end, members, kind)
				})
			}
		}
	}
	if s.fast == nil {
		read()
	}
	on := s.fault.on(time.Duration(o), time.Duration(o)+tick)
	swing := 1 + 0.25*math.Sin(2*math.Pi*float64(o)/float64(24*time.Hour)+s.swing)
	s.each(func(nd *node) { nd.send(s, at, o, swing, on) })
	if s.fast != nil {
		// The fast path's events of the tick come before the read at its
		// end, which touches the same slow sets.
		s.fast.tick(s, s.services[0], o, swing)
		read()
	}
	return nil
}

// each runs f on every node, the nodes split in contiguous shares among
// the workers; it returns when all are done.
func (s *sim) each(f func(*node)) {
	var wg sync.WaitGroup
	n := len(s.nodes)
	for w := range s.workers {
		lo, hi := w*n/s.workers, (w+1)*n/s.workers
		wg.Go(func() {
			for _, nd := range s.nodes[lo:hi] {
				f(nd)
			}
		})
	}
	wg.Wait()
}
