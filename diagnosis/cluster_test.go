package diagnosis

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// cluster describes a synthetic cluster whose every reporter measures a
// random subset of the others, with log-normal noise, and the faults
// injected into it.
type cluster struct {
	nodes    int     // node i is nodeName(i)
	peers    int     // peers each reporter measures
	baseMs   float64 // typical latency (default 2)
	jitter   float64 // σ of the log-normal noise of each cell
	spread   float64 // σ of each node's own (harmless) effects
	seed     uint64
	rackSize int     // nodes per rack in topology(); 0: no racks
	local    float64 // share of each node's peers in its own rack
	inside   float64 // factor of latencies inside a rack (0: 1)

	noisy    map[int]float64    // node → σ of the noise of its cells instead of jitter
	slowIn   map[int]float64    // receiver × factor
	slowOut  map[int]float64    // sender × factor
	slowLink map[[2]int]float64 // (sender, receiver) × factor, that direction only
	slowRack map[int]float64    // rack × factor on traffic crossing its edge
}

var t0 = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

func nodeName(i int) string { return fmt.Sprintf("10.%d.%d.%d:9866", i/65536, i/256%256, i%256) }

func (c cluster) rack(i int) int { return i / c.rackSize }

// topology is the rack table of c: rack k holds nodes k×rackSize onwards.
func (c cluster) topology(t testing.TB) Topology {
	t.Helper()
	var b strings.Builder
	for i := range c.nodes {
		host, _, _ := strings.Cut(nodeName(i), ":")
		fmt.Fprintf(&b, "%s /rack%d\n", host, c.rack(i))
	}
	topo, err := ParseTopology(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// fill adds c's cells to m as of at.
func (c cluster) fill(t testing.TB, m *Matrix, at time.Time) {
	t.Helper()
	rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
	base := c.baseMs
	if base == 0 {
		base = 2
	}
	own := make([][2]float64, c.nodes)
	for i := range own {
		own[i] = [2]float64{c.spread * rng.NormFloat64(), c.spread * rng.NormFloat64()}
	}
	for i := range c.nodes {
		peers := map[int]bool{}
		for l := range c.slowLink { // make sure the bad links are measured
			if l[0] == i {
				peers[l[1]] = true
			}
			if l[1] == i {
				peers[l[0]] = true
			}
		}
		if c.local > 0 {
			first := c.rack(i) * c.rackSize
			size := min(c.rackSize, c.nodes-first) // the last rack may be short
			for want := min(int(c.local*float64(c.peers)), size-1); len(peers) < want; {
				if j := first + rng.IntN(size); j != i {
					peers[j] = true
				}
			}
		}
		for len(peers) < min(c.peers, c.nodes-1) {
			if j := rng.IntN(c.nodes); j != i {
				peers[j] = true
			}
		}
		for _, j := range slices.Sorted(maps.Keys(peers)) {
			jitter := max(c.jitter, c.noisy[i], c.noisy[j])
			ms := base * math.Exp(own[i][0]+own[j][1]+jitter*rng.NormFloat64())
			ms *= factor(c.slowOut, i) * factor(c.slowIn, j) * factor(c.slowLink, [2]int{i, j})
			switch {
			case c.rackSize > 0 && c.rack(i) != c.rack(j):
				ms *= factor(c.slowRack, c.rack(i)) * factor(c.slowRack, c.rack(j))
			case c.rackSize > 0 && c.inside > 0:
				ms *= c.inside
			}
			if err := m.Add(nodeName(i), nodeName(j), ms, 50+rng.IntN(2000), at); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func factor[K comparable](m map[K]float64, k K) float64 {
	if f, ok := m[k]; ok {
		return f
	}
	return 1
}

// diagnose fills a fresh Matrix of cfg with c and diagnoses it.
func (c cluster) diagnose(t testing.TB, cfg Config) []Finding {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.fill(t, m, t0)
	return m.Diagnose(t0.Add(time.Minute))
}
