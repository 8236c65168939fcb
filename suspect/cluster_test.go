package suspect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// cluster is a small cluster in synthetic time around a Detector: every
// node probes one peer a second in shuffled rounds over its peers (the
// agents' coverage), heartbeats every 3 s with what it measured, runs the
// probe requests of the reply at once and answers them in an early
// heartbeat half a second later; the service steps every 500 ms.
type cluster struct {
	t     *testing.T
	d     *Detector
	nodes []string
	rack  map[string]string
	start time.Time
	now   time.Time
	rng   *rand.Rand
	// lat returns the latency of a block from a to b at t, in ms.
	lat func(t time.Time, a, b string) float64
	// paused reports whether node is paused at t: it sends no heartbeat.
	paused func(t time.Time, node string) bool
	// peers are each node's peers (every other node when nil); a
	// request for another node is an error of the test, as the agent
	// ignores it.
	peers map[string][]string

	order   map[string][]string // each node's current coverage round
	blocks  map[string]map[reports.RecentLatency][]float64
	answers map[string]time.Time // early heartbeats due
	// verdicts are every verdict Step returned; entered the first
	// confirmation of each target, kinds its kind then.
	verdicts []Verdict
	entered  map[string]Verdict
	// asked counts the blocks each agent was asked for.
	asked map[string]int
}

const heartbeat = 3 * time.Second

func newCluster(t *testing.T, n int, cfg Config, racks int) *cluster {
	t.Helper()
	c := &cluster{t: t, rack: map[string]string{}, start: time.Unix(1_700_000_000, 0),
		rng: rand.New(rand.NewPCG(uint64(n), 7)), order: map[string][]string{},
		blocks: map[string]map[reports.RecentLatency][]float64{}, answers: map[string]time.Time{},
		entered: map[string]Verdict{}, asked: map[string]int{}}
	c.now = c.start
	for i := range n {
		name := fmt.Sprintf("10.0.0.%d:9866", i+1)
		c.nodes = append(c.nodes, name)
		if racks > 0 {
			c.rack[name] = fmt.Sprintf("/r%d", i%racks)
		}
	}
	if racks > 0 {
		cfg.Rack = func(node string) string { return c.rack[node] }
	}
	c.d = New(cfg)
	c.lat = func(time.Time, string, string) float64 { return 1 }
	c.paused = func(time.Time, string) bool { return false }
	return c
}

// measure returns a block's latency from a to b now, with noise.
func (c *cluster) measure(a, b string) float64 {
	x := c.lat(c.now, a, b) * (0.9 + 0.2*c.rng.Float64())
	if c.paused(c.now, a) || c.paused(c.now, b) {
		x *= 50
	}
	return x
}

func (c *cluster) record(a, b string, round int64) {
	if c.blocks[a] == nil {
		c.blocks[a] = map[reports.RecentLatency][]float64{}
	}
	k := reports.RecentLatency{Node: b, Round: round}
	c.blocks[a][k] = append(c.blocks[a][k], c.measure(a, b))
}

// heartbeat sends a's heartbeat now and runs the requests of its reply.
func (c *cluster) heartbeat(a string) {
	var rs []reports.RecentLatency
	for k, xs := range c.blocks[a] {
		k.Blocks = int64(len(xs))
		k.LatencyMs = median(xs)
		rs = append(rs, k)
	}
	slices.SortFunc(rs, func(x, y reports.RecentLatency) int { return int(x.Round - y.Round) })
	delete(c.blocks, a)
	c.d.Observe(c.now, a, rs)
	reqs := c.d.Requests(c.now, a)
	for _, r := range reqs {
		if !slices.Contains(c.peersOf(a), r.Node) {
			c.t.Errorf("%s asked to probe %s, not one of its peers", a, r.Node)
		}
		c.asked[a] += r.Blocks
		for range r.Blocks {
			c.record(a, r.Node, r.Round)
		}
	}
	if len(reqs) > 0 {
		c.answers[a] = c.now.Add(500 * time.Millisecond)
	}
}

// peersOf returns the peers a probes.
func (c *cluster) peersOf(a string) []string {
	if c.peers != nil {
		return c.peers[a]
	}
	return slices.DeleteFunc(slices.Clone(c.nodes), func(p string) bool { return p == a })
}

// run advances the cluster by d, in steps of 500 ms.
func (c *cluster) run(d time.Duration) {
	c.t.Helper()
	end := c.now.Add(d)
	live := func(string) bool { return true }
	for c.now.Before(end) {
		c.now = c.now.Add(500 * time.Millisecond)
		tick := int(c.now.Sub(c.start) / (500 * time.Millisecond))
		for i, a := range c.nodes {
			if c.paused(c.now, a) {
				continue
			}
			if tick%2 == i%2 { // one coverage block a second
				if len(c.order[a]) == 0 {
					peers := slices.Clone(c.peersOf(a))
					c.rng.Shuffle(len(peers), func(i, j int) { peers[i], peers[j] = peers[j], peers[i] })
					c.order[a] = peers
				}
				c.record(a, c.order[a][0], 0)
				c.order[a] = c.order[a][1:]
			}
			due, early := c.answers[a]
			if early && !c.now.Before(due) || tick%6 == i%6 {
				delete(c.answers, a)
				c.heartbeat(a)
			}
		}
		for _, v := range c.d.Step(c.now, live) {
			c.verdicts = append(c.verdicts, v)
			if _, ok := c.entered[v.Target]; v.Confirmed && !ok {
				c.entered[v.Target] = v
			}
		}
	}
}

// confirmed returns the targets confirmed so far, sorted.
func (c *cluster) confirmed() []string {
	var out []string
	for t := range c.entered {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// kindOf returns the kind of the last confirmed verdict of target.
func (c *cluster) kindOf(target string) Kind {
	var k Kind
	for _, v := range c.verdicts {
		if v.Target == target && v.Confirmed {
			k = v.Kind
		}
	}
	return k
}
