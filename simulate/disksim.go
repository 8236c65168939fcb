package simulate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// diskSim runs the disks of a cluster: the same simulated I/O through
// slowpeer's pipeline (the agent's disk.Recorder fed by the kernel's
// counters and the probes, its report every report interval with every
// volume's latencies and load, the service's tracker.Disks, disk.Fleet
// and slow set of disks, as namenode.Server.DiagnoseDisks) and Hadoop's
// (DataNodeDiskMetrics' test on the DataNode's own I/O of the last
// metrics period, every 30 minutes, into the same tracker, a disk slow
// while a valid report names it).
type diskSim struct {
	cfg   Config
	nodes []diskNode
	truth []string
	rngs  []*rand.Rand
	algs  [2]*diskAlg
	swing float64 // phase of the daily load swing
}

// diskAlg is one algorithm's disk pipeline.
type diskAlg struct {
	slowpeer bool
	interval time.Duration // the agents' report interval
	agents   []diskAgent
	tracker  *tracker.Disks
	fleet    *disk.Fleet // slowpeer only
	set      *tracker.SlowSet
	score    *score
}

// diskAgent is one node's agent for one algorithm.
type diskAgent struct {
	rec  *disk.Recorder
	det  *disk.Detector
	next time.Time // its next report
	out  *diskReport
}

// diskReport is a report an agent sends in a tick.
type diskReport struct {
	at       time.Time
	slow     []reports.SlowDisk
	measured []reports.DiskLatency
}

// newDiskSim lays out the disks of cfg's cluster and both pipelines.
func newDiskSim(cfg Config, c *cluster) (*diskSim, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xd15c))
	d := &diskSim{cfg: cfg, swing: 2 * math.Pi * rng.Float64()}
	d.nodes, d.truth = newDiskCluster(c, cfg.Scenario, rng)
	onset := epoch.Add(cfg.Warmup)
	for a, alg := range []Algorithm{cfg.Slowpeer, cfg.Hadoop} {
		da := &diskAlg{slowpeer: a == 0, interval: alg.Agent.ReportInterval,
			tracker: tracker.NewDisks(alg.ReportValidity, 0), score: newDiskScore(onset, d.truth)}
		set := alg.SlowSet
		set.EnterReporters = 1
		da.set = tracker.NewSlowSet(set)
		window, windows := alg.Agent.RollingWindow, alg.Agent.RollingWindows
		if da.slowpeer {
			f, err := disk.NewFleet(alg.DiskFleet)
			if err != nil {
				return nil, err
			}
			da.fleet = f
		} else {
			// Hadoop's means are those of the metrics system's last
			// period (MutableRate.lastStat): here, the last tick.
			window, windows = cfg.Tick, 1
		}
		for i, n := range d.nodes {
			vols := make([]disk.Volume, len(n.vols))
			for v, x := range n.vols {
				vols[v] = disk.Volume{Path: x.path, StorageType: x.dev.storageType, Kind: x.dev.kind}
			}
			rec, err := disk.NewRecorder(window, windows, vols)
			if err != nil {
				return nil, fmt.Errorf("simulate: %w", err)
			}
			det := disk.NewDetector(disk.DefaultMinDisks, disk.DefaultLowThreshold)
			if da.slowpeer {
				det.BusyUtilization = disk.DefaultBusyUtilization
			}
			start := epoch.Add(time.Duration(rand.New(rand.NewPCG(cfg.Seed^0xa9e7, uint64(i))).Int64N(int64(da.interval))))
			da.agents = append(da.agents, diskAgent{rec: rec, det: det, next: start})
		}
		d.algs[a] = da
	}
	for i := range d.nodes {
		d.rngs = append(d.rngs, rand.New(rand.NewPCG(cfg.Seed^0xd15c, uint64(i)+1)))
	}
	return d, nil
}

// runDisks runs the disks of cfg, as Run runs the network.
func runDisks(ctx context.Context, cfg Config, progress func(done, total int)) (Result, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x51a7))
	c, err := newCluster(cfg, rng)
	if err != nil {
		return Result{}, err
	}
	d, err := newDiskSim(cfg, c)
	if err != nil {
		return Result{}, err
	}
	measured := time.Duration(cfg.Hours * float64(time.Hour))
	ticks := int((cfg.Warmup + measured + cfg.ReadInterval - 1) / cfg.ReadInterval * (cfg.ReadInterval / cfg.Tick))
	for k := range ticks {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("simulate: %w", err)
		}
		d.tick(k)
		if progress != nil {
			progress(k+1, ticks)
		}
	}
	hours := float64(time.Duration(ticks)*cfg.Tick-cfg.Warmup) / float64(time.Hour)
	return Result{Nodes: cfg.Nodes, Scenario: cfg.Scenario, Seed: cfg.Seed, Truth: d.truth,
		Slowpeer: d.algs[0].score.metrics(hours, time.Time{}), Hadoop: d.algs[1].score.metrics(hours, time.Time{})}, nil
}

// tick runs tick k: every volume's I/O, recorded by both agents; the
// reports due, delivered in (time, node) order; and a read of both
// services at each ReadInterval.
func (d *diskSim) tick(k int) {
	tick := d.cfg.Tick
	o := time.Duration(k) * tick
	at := epoch.Add(o)
	end := at.Add(tick)
	on := o >= d.cfg.Warmup
	swing := 1 + 0.25*math.Sin(2*math.Pi*float64(o)/float64(24*time.Hour)+d.swing)
	d.each(func(i int) {
		n := &d.nodes[i]
		for v := range n.vols {
			x := n.vols[v].draw(d.rngs[i], tick, swing, d.cfg.SlowFactor, on)
			d.record(i, n.vols[v].path, at, tick, x)
		}
		for _, da := range d.algs {
			ag := &da.agents[i]
			ag.out = nil
			if ag.next.Before(end) {
				// A report at its time sees the I/O up to the tick's end.
				slow, measured := ag.rec.ReportAt(end.Add(-1), ag.det)
				if !da.slowpeer {
					measured = nil // Hadoop's DataNode sends none
				}
				ag.out = &diskReport{at: ag.next, slow: slow, measured: measured}
				for !ag.next.After(end) {
					ag.next = ag.next.Add(da.interval)
				}
			}
		}
	})
	for _, da := range d.algs {
		order := make([]int, 0, 64)
		for i := range da.agents {
			if da.agents[i].out != nil {
				order = append(order, i)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return da.agents[a].out.at.Compare(da.agents[b].out.at) })
		for _, i := range order {
			r := da.agents[i].out
			// The tracker is unbounded here: no report is refused.
			_ = da.tracker.Report(r.at, d.nodes[i].name, r.slow, r.measured)
		}
	}
	if o+tick > d.cfg.Warmup-readBefore && (o+tick)%d.cfg.ReadInterval == 0 {
		for _, da := range d.algs {
			da.score.observe(end, da.step(end), nil)
		}
	}
}

// record hands x, one volume's tick, to both agents: slowpeer's sees the
// kernel's counters and its probes, Hadoop's the DataNode's own timed
// I/O.
func (d *diskSim) record(i int, path string, at time.Time, tick time.Duration, x diskTick) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	sp := d.algs[0].agents[i].rec
	sp.AddManyAt(at, path, disk.Read, ms(x.readMs), x.reads)
	sp.AddManyAt(at, path, disk.Write, ms(x.writeMs), x.writes)
	for op := range x.probes {
		sp.AddManyAt(at, path, disk.Op(op), ms(x.probeMs[op]), x.probes[op])
	}
	if err := sp.AddLoadAt(at, path, tick, x.reads+x.writes, x.bytes, x.busy); err != nil {
		panic("BUG: simulate: " + err.Error())
	}
	hd := d.algs[1].agents[i].rec
	hd.AddManyAt(at, path, disk.Read, ms(x.dnReadMs*float64(x.reads)), x.reads)
	hd.AddManyAt(at, path, disk.Write, ms(x.dnWrite*float64(x.writes)), x.writes)
	hd.AddManyAt(at, path, disk.Metadata, ms(x.metaMs*float64(x.meta)), x.meta)
}

// step reads the service at now and returns the disk ids in its slow set.
func (da *diskAlg) step(now time.Time) []string {
	da.tracker.Expire(now)
	var ids []string
	if da.slowpeer {
		measured := da.tracker.Measured(now)
		nodes := make([]disk.NodeDisks, len(measured))
		held := make(map[string]bool, len(measured))
		for i, m := range measured {
			nodes[i], held[m.Node] = disk.NodeDisks{Node: m.Node, Disks: m.Disks}, true
		}
		ids = disk.SlowIDs(da.fleet.Judge(nodes), da.tracker.Slow(now), func(n string) bool { return held[n] })
	} else {
		for _, r := range da.tracker.Slow(now) {
			ids = append(ids, r.ID)
		}
	}
	da.set.Update(now, namenode.DiskCounts(ids))
	return da.set.Nodes()
}

// each runs f on every node index, split among the workers.
func (d *diskSim) each(f func(i int)) {
	workers := max(1, d.cfg.Workers)
	if d.cfg.Workers == 0 {
		workers = 2
	}
	var wg sync.WaitGroup
	n := len(d.nodes)
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				f(i)
			}
		})
	}
	wg.Wait()
}

// withHealthyDisks adds to r, the network's figures of a healthy run, the
// disks' of the same cluster: nothing is at fault in either, so their
// false positives and flaps add up.
func withHealthyDisks(ctx context.Context, cfg Config, r Result) (Result, error) {
	d, err := runDisks(ctx, cfg, nil)
	if err != nil {
		return Result{}, err
	}
	return addDisks(r, d), nil
}

// addDisks adds to r, the network's figures of a healthy run, d, its
// disks'. Slowpeer's disks are the same with the fast path or without
// (it watches the network only): they add to both, so that slowpeer and
// withoutFastPath compare the network alone.
func addDisks(r, d Result) Result {
	r.Slowpeer, r.Hadoop = addHealthy(r.Slowpeer, d.Slowpeer), addHealthy(r.Hadoop, d.Hadoop)
	if r.WithoutFastPath != nil {
		r.WithoutFastPath = new(addHealthy(*r.WithoutFastPath, d.Slowpeer))
	}
	return r
}

// addHealthy adds the figures of two parts of a run without a fault.
func addHealthy(a, b Metrics) Metrics {
	m := Metrics{FalsePositives: a.FalsePositives + b.FalsePositives, FlapsPerHour: a.FlapsPerHour + b.FlapsPerHour,
		Incidents: a.Incidents}
	m.FalsePositiveEntities = append(append([]string(nil), a.FalsePositiveEntities...), b.FalsePositiveEntities...)
	slices.Sort(m.FalsePositiveEntities)
	if m.FalsePositives > 0 {
		zero := 0.0
		m.Precision = &zero
	}
	return m
}
