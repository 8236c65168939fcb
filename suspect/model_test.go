package suspect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestModelOrder checks that the model's order holds every node once,
// as nodes come and go, and that refresh's sample of a model of more
// than sampleSize pairs sees every reporter within a few refreshes, in
// the same order for the same evidence.
func TestModelOrder(t *testing.T) {
	build := func() *model {
		m := newModel(nil, 64)
		now := time.Unix(1_700_000_000, 0)
		for i := range 300 {
			r := m.node(fmt.Sprintf("n%03d", i))
			for j := 1; j <= 20; j++ { // 6 000 pairs
				m.record(now, r, fmt.Sprintf("n%03d", (i+j)%300), 1+2*float64(i%2))
			}
		}
		m.forget("n007")
		m.forget("n299")
		m.forget("n100")
		return m
	}
	checkOrder := func(m *model, want int) {
		t.Helper()
		if len(m.order) != len(m.nodes) || len(m.nodes) != want {
			t.Fatalf("%d in order, %d nodes, want %d", len(m.order), len(m.nodes), want)
		}
		for i, n := range m.order {
			if n.at != i || m.nodes[n.name] != n {
				t.Fatalf("order[%d] is %q at %d", i, n.name, n.at)
			}
		}
		checkPairs(t, m)
	}
	m := build()
	checkOrder(m, 297)
	// Nodes freed when a reporter's pairs past maxPeers replace their
	// only pair leave the order too.
	small := newModel(nil, 3)
	r := small.node("r")
	for i := range 50 {
		small.record(time.Unix(int64(i), 0), r, fmt.Sprintf("p%02d", i), 1)
	}
	checkOrder(small, 4)
	// The sample: every k-th node (k = 2 here), from the next one on.
	now := time.Unix(1_700_000_000, 0)
	var levels []float64
	for range 4 {
		m.dirty = true
		m.refresh(now)
		levels = append(levels, m.cluster[sameRack])
	}
	if levels[0] == levels[1] || levels[0] != levels[2] || levels[1] != levels[3] {
		t.Fatalf("levels of 4 refreshes: %v (want two samples, alternating)", levels)
	}
	again := build()
	again.dirty = true
	again.refresh(now)
	if again.cluster != [2]float64{levels[0], 0} {
		t.Fatalf("the same evidence: level %v, then %v", levels[0], again.cluster)
	}
}

// checkPairs checks that every pair of m is in its reporter's out and
// its peer's in, both members of m by their ids, and that the arena
// holds m.pairs pairs beside its free slots.
func checkPairs(t *testing.T, m *model) {
	t.Helper()
	ids, outs := 0, 0
	for id, n := range m.byID {
		if n == nil {
			continue
		}
		ids++
		if n.id != int32(id) || m.nodes[n.name] != n {
			t.Fatalf("byID[%d] is %q of id %d", id, n.name, n.id)
		}
		for _, i := range n.out {
			o := m.arena[i]
			if o.reporter != n.id || m.byID[o.peer] == nil || !slices.Contains(m.byID[o.peer].in, i) {
				t.Fatalf("%q's pair %d: %+v, not in its peer's in", n.name, i, o)
			}
		}
		for _, i := range n.in {
			if o := m.arena[i]; o.peer != n.id || m.byID[o.reporter] == nil || !slices.Contains(m.byID[o.reporter].out, i) {
				t.Fatalf("%q's pair %d from %+v, not in its reporter's out", n.name, i, o)
			}
		}
		outs += len(n.out)
	}
	if ids != len(m.nodes) || outs != m.pairs || len(m.arena)-len(m.free) != m.pairs {
		t.Fatalf("%d ids, %d nodes; %d pairs out, %d counted, %d in the arena", ids, len(m.nodes), outs, m.pairs, len(m.arena)-len(m.free))
	}
}

// Pairs recorded, replaced past maxPeers, expired and forgotten in a
// random order keep the model whole: every pair at both its ends, the
// ids and the count right, a reporter within maxPeers, and the pair just
// recorded holding its latency.
func TestModelPairsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := newModel(nil, 5)
	now := time.Unix(1_700_000_000, 0)
	name := func() string { return fmt.Sprintf("n%02d", rng.IntN(20)) }
	for op := range 20000 {
		now = now.Add(time.Duration(rng.IntN(400)) * time.Millisecond)
		switch k := rng.IntN(100); {
		case k < 90:
			r, p := name(), name()
			if r == p {
				continue
			}
			lat := float64(op)
			m.record(now, m.node(r), p, lat)
			if o := m.outPair(m.nodes[r], p); o == nil || o.latencyMs != lat {
				t.Fatalf("op %d: %s → %s recorded %v, holds %+v", op, r, p, lat, o)
			}
		case k < 97:
			m.expireSome(now, 20*time.Second)
		default:
			m.forget(name())
		}
		for _, n := range m.order {
			if len(n.out) > m.maxPeers {
				t.Fatalf("op %d: %s holds %d pairs, more than %d", op, n.name, len(n.out), m.maxPeers)
			}
		}
		checkPairs(t, m)
	}
	if m.replaced == 0 || len(m.freeIDs) == 0 && len(m.free) == 0 {
		t.Fatalf("replaced %d, %d free ids, %d free slots: the run did not reuse", m.replaced, len(m.freeIDs), len(m.free))
	}
}
