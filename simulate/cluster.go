package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// cluster is the simulated cluster's layout and its fixed latencies.
type cluster struct {
	n        int
	names    []string // node i is "10.x.y.z:9866"
	rackOf   []int
	racks    [][]int32 // nodes of each rack
	remote   [][]int32 // the other racks' nodes each node writes to
	outEff   []float64 // per-node factor on what it sends (harmless spread)
	inEff    []float64 // per-node factor on what it receives
	baseMs   float64
	linkSeed uint64
	topology diagnosis.Topology
}

// newCluster lays out n nodes in racks of rackSize and draws each node's
// remote peers and its own speed.
func newCluster(cfg Config, rng *rand.Rand) (*cluster, error) {
	n := cfg.Nodes
	c := &cluster{n: n, names: make([]string, n), rackOf: make([]int, n), remote: make([][]int32, n),
		outEff: make([]float64, n), inEff: make([]float64, n), baseMs: cfg.BaseLatencyMs, linkSeed: rng.Uint64()}
	var table strings.Builder
	for i := range n {
		host := fmt.Sprintf("10.%d.%d.%d", 1+i/65536, i/256%256, i%256)
		c.names[i] = host + ":9866"
		c.rackOf[i] = i / cfg.RackSize
		fmt.Fprintf(&table, "%s /rack%d\n", host, c.rackOf[i])
	}
	c.racks = make([][]int32, c.rackOf[n-1]+1)
	for i := range n {
		c.racks[c.rackOf[i]] = append(c.racks[c.rackOf[i]], int32(i))
	}
	for i := range n {
		// Per-node speed: log-normal, σ 0.15, so that nodes differ a little.
		c.outEff[i] = math.Exp(0.15 * rng.NormFloat64())
		c.inEff[i] = math.Exp(0.15 * rng.NormFloat64())
		// Remote peers: distinct, in other racks, as HDFS places the
		// second replica off the writer's rack.
		seen := map[int32]bool{}
		for len(c.remote[i]) < cfg.RemotePeers {
			j := int32(rng.IntN(n))
			if c.rackOf[j] == c.rackOf[i] || seen[j] {
				continue
			}
			seen[j] = true
			c.remote[i] = append(c.remote[i], j)
		}
	}
	topo, err := diagnosis.ParseTopology(strings.NewReader(table.String()))
	if err != nil {
		return nil, fmt.Errorf("simulate: rack table: %w", err)
	}
	c.topology = topo
	return c, nil
}

// baseMs is the latency of i sending one packet to j before noise,
// swing and faults: the cluster's base, the two nodes' own factors, 0.7
// inside a rack, and a per-link factor (log-normal, σ 0.1) that a hash of
// the pair fixes for the whole run.
func (c *cluster) linkBaseMs(i, j int) float64 {
	x := c.baseMs * c.outEff[i] * c.inEff[j]
	if c.rackOf[i] == c.rackOf[j] {
		x *= 0.7
	}
	h := mix(c.linkSeed ^ uint64(i)<<32 ^ uint64(j))
	u1 := (float64(h>>11) + 0.5) / (1 << 53)
	u2 := (float64(mix(h)>>11) + 0.5) / (1 << 53)
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2) // Box–Muller
	return x * math.Exp(0.1*z)
}

// mix is SplitMix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
