package diagnosis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// small is a lab-sized cluster: 12 nodes, every one measuring all 11
// others, as in "slowpeer demo -lab".
var small = cluster{nodes: 12, peers: 11, baseMs: 0.1, jitter: 0.2, spread: 0.1}

// labConfig is the diagnosis of the service the demo runs: its floor is
// namenode.DefaultSlowNodesFloor, 0.25 ms.
func labConfig() Config {
	c := DefaultConfig()
	c.FloorMs = 0.25
	return c
}

// TestSigmaIgnoresPinnedCells: the robust deviation of the residuals is
// that of the noise, also in a small cluster where the fit makes one cell
// of every row and column exact.
func TestSigmaIgnoresPinnedCells(t *testing.T) {
	f := func(nodes int) {
		t.Helper()
		const jitter, seeds = 0.2, 100
		sum := 0.0
		for seed := range uint64(seeds) {
			rng := rand.New(rand.NewPCG(seed, 1))
			m, err := New(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			for i := range nodes {
				for j := range nodes {
					if i != j {
						if err := m.Add(nodeName(i), nodeName(j), math.Exp(jitter*rng.NormFloat64()), 100, t0); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			m.Diagnose(t0)
			sum += m.scratch.sigma / jitter
		}
		if mean := sum / seeds; mean < 0.93 || mean > 1.07 {
			t.Errorf("%d nodes: robust deviation %.3f × the noise's, want within 7 %%", nodes, mean)
		}
	}
	f(6)
	f(12)
	f(64)
}

// TestDiagnoseStrayingNode: a node whose measurements stray, with some of
// its peers and not most, is no bad link to each of them. This is what a
// CPU-starved agent measures when the blocks that met the starving
// outvote the others of a few pairs: the peers are fine.
func TestDiagnoseStrayingNode(t *testing.T) {
	f := func(name string, c cluster, want ...Finding) {
		t.Helper()
		for seed := range uint64(20) {
			c.seed = seed
			got := c.diagnose(t, labConfig())
			if g := unordered(sloppy(got)); !equalFindings(g, want) {
				t.Errorf("%s, seed %d: got %+v, want %+v", name, seed, got, want)
			}
		}
	}
	c := small
	c.slowLink = map[[2]int]float64{{5, 1}: 6, {5, 2}: 5, {5, 3}: 8}
	f("3 of a sender's 11 cells 5–8× slow", c)

	c = small
	c.slowLink = map[[2]int]float64{{1, 7}: 6, {4, 7}: 5, {9, 7}: 8, {10, 7}: 5}
	f("4 of a receiver's 11 cells 5–8× slow", c)

	c = small
	c.slowOut = map[int]float64{5: 6}
	f("a sender starved all the time: itself slow, outbound", c, Finding{Node: nodeName(5), Kind: Outbound})

	// The lab's pair-rate=100mbit makes a pair about 25 times slower
	// than the others, 20mbit about 100 times.
	c = small
	c.slowLink = map[[2]int]float64{{5, 1}: 25}
	f("one slow pair: a link", c, Finding{Node: nodeName(5), Kind: Link, Peer: nodeName(1), Reporters: 1})

	c = small
	c.slowLink = map[[2]int]float64{{5, 1}: 25, {1, 5}: 25}
	f("one slow pair both ways: one link", c, Finding{Node: nodeName(1), Kind: Link, Peer: nodeName(5), Reporters: 2})
}

// unordered names a link by its lower node first: which direction of a
// pair slow both ways is the slower is the noise's choice.
func unordered(fs []Finding) []Finding {
	for i, f := range fs {
		if f.Kind == Link && f.Reporters == 2 && f.Peer < f.Node {
			fs[i].Node, fs[i].Peer = f.Peer, f.Node
		}
	}
	return fs
}

// TestDiagnoseFirstRows: while a new cluster's first reports come in, a
// row at a time, a reporter that measured everybody slow (its first
// packets timed on a busy CPU) is not judged against one or two other
// rows, and its peers are never slow for it.
func TestDiagnoseFirstRows(t *testing.T) {
	f := func(rows int, want ...Finding) {
		t.Helper()
		for seed := range uint64(20) {
			c := small
			c.seed = seed
			c.slowOut = map[int]float64{0: 10}
			m, err := New(labConfig())
			if err != nil {
				t.Fatal(err)
			}
			c.fill(t, m, t0)
			for i := rows; i < c.nodes; i++ {
				m.Forget(nodeName(i))
			}
			if got := sloppy(m.Diagnose(t0)); !equalFindings(got, want) {
				t.Errorf("%d rows, seed %d: got %+v, want %+v", rows, seed, got, want)
			}
		}
	}
	for rows := 1; rows <= DefaultMinPairs; rows++ {
		f(rows)
	}
	f(DefaultMinPairs+1, Finding{Node: nodeName(0), Kind: Outbound})
	f(small.nodes, Finding{Node: nodeName(0), Kind: Outbound})
}
