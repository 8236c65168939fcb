package diagnosis

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestDiagnoseProperties injects one random fault into random noisy,
// sparse clusters and checks that exactly it is found, and that the same
// cluster without the fault gives nothing.
func TestDiagnoseProperties(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 3))
		c := cluster{
			nodes:    60 + rng.IntN(240),
			jitter:   0.1 + 0.25*rng.Float64(),
			spread:   0.2 * rng.Float64(),
			baseMs:   0.5 + 5*rng.Float64(),
			seed:     seed,
			rackSize: 10 + rng.IntN(20),
			local:    0.6 * rng.Float64(),
			inside:   0.3 + 0.7*rng.Float64(),
		}
		c.peers = max(20, c.nodes*(10+rng.IntN(30))/100) // 60–90 % missing
		c.rackSize = min(c.rackSize, c.nodes/5)          // a slow rack stays a minority
		cfg := DefaultConfig()
		cfg.Topology = c.topology(t)
		name := fmt.Sprintf("seed %d, %d nodes × %d peers, jitter %.2f, %.0f %% in rack at %.1f×",
			seed, c.nodes, c.peers, c.jitter, 100*c.local, c.inside)
		if got := c.diagnose(t, cfg); len(got) != 0 {
			t.Errorf("%s, healthy: %+v", name, got)
		}
		// Clear of the limits: 2 to 5 times the factor that reaches them.
		slow := (2 + 3*rng.Float64()) * max(DefaultSlowFactor, DefaultFloorMs/c.baseMs)
		a, b := rng.IntN(c.nodes), rng.IntN(c.nodes)
		for b == a {
			b = rng.IntN(c.nodes)
		}
		var want Finding
		switch kind := rng.IntN(5); kind {
		case 0:
			c.slowIn = map[int]float64{a: slow}
			want = Finding{Node: nodeName(a), Kind: Inbound}
		case 1:
			c.slowOut = map[int]float64{a: slow}
			want = Finding{Node: nodeName(a), Kind: Outbound}
		case 2:
			c.slowIn, c.slowOut = map[int]float64{a: slow}, map[int]float64{a: slow}
			want = Finding{Node: nodeName(a), Kind: Both}
		case 3:
			c.slowLink = map[[2]int]float64{{a, b}: 3 * slow}
			want = Finding{Node: nodeName(a), Kind: Link, Peer: nodeName(b), Reporters: 1}
		case 4:
			r := c.rack(a)
			c.slowRack = map[int]float64{r: slow}
			want = Finding{Kind: Rack, Rack: fmt.Sprintf("/rack%d", r)}
		}
		got := c.diagnose(t, cfg)
		if !equalFindings(sloppy(got), []Finding{want}) {
			t.Errorf("%s, %s %.1f×: got %+v, want %+v", name, want.Kind, slow, got, want)
		}
	}
}

func TestDiagnoseIgnores(t *testing.T) {
	f := func(name string, add func(m *Matrix), now time.Time) {
		t.Helper()
		m := newMatrix(t, nil)
		add(m)
		if got := m.Diagnose(now); len(got) != 0 {
			t.Errorf("%s: %+v", name, got)
		}
	}
	healthy := cluster{nodes: 50, peers: 20, jitter: 0.2, seed: 9}
	f("empty", func(*Matrix) {}, t0)
	f("few samples", func(m *Matrix) {
		healthy.fill(t, m, t0)
		for i := 1; i < 30; i++ { // a column of slow cells, each of 9 packets
			if err := m.Add(nodeName(i), nodeName(0), 500, DefaultMinSamples-1, t0.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}
	}, t0.Add(time.Minute))
	f("expired", func(m *Matrix) {
		slow := healthy
		slow.slowIn = map[int]float64{3: 50}
		slow.fill(t, m, t0)
		healthy.fill(t, m, t0.Add(DefaultMaxAge/2)) // replaces every cell
		slow.slowIn = map[int]float64{4: 50}
		slow.fill(t, m, t0) // older than the cells held: ignored
	}, t0.Add(DefaultMaxAge))
	f("two nodes", func(m *Matrix) {
		for range 3 {
			if err := m.Add(nodeName(0), nodeName(1), 100, 1000, t0); err != nil {
				t.Fatal(err)
			}
			if err := m.Add(nodeName(1), nodeName(0), 1, 1000, t0); err != nil {
				t.Fatal(err)
			}
		}
	}, t0)
	f("below the floor", func(m *Matrix) {
		c := cluster{nodes: 50, peers: 20, jitter: 0.2, seed: 9, baseMs: 0.2, slowIn: map[int]float64{5: 10}}
		c.fill(t, m, t0) // 2 ms: ten times the median, not above 5 ms
	}, t0)
}

// TestDiagnoseSmallCluster is the demo's case: 12 nodes that all measure
// each other, one acknowledging 50 ms late, on loopback.
func TestDiagnoseSmallCluster(t *testing.T) {
	m := newMatrix(t, nil)
	rng := rand.New(rand.NewPCG(12, 12))
	for i := range 12 {
		for j := range 12 {
			if i == j {
				continue
			}
			ms := 0.2 + 0.1*rng.Float64()
			if j == 4 {
				ms += 50
			}
			if err := m.Add(nodeName(i), nodeName(j), ms, 1000, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := m.Diagnose(t0)
	if len(got) != 1 || got[0].Node != nodeName(4) || got[0].Kind != Inbound || got[0].Reporters != 11 {
		t.Fatalf("got %+v, want node 4 inbound, from 11 reporters", got)
	}
}

// TestDiagnoseManySlow has 5 % of a rack-aware cluster slow, each node in
// one of the three ways: every one is found, as what it is, and nothing
// else.
func TestDiagnoseManySlow(t *testing.T) {
	for seed := range uint64(2) {
		rng := rand.New(rand.NewPCG(seed, 9))
		c := cluster{nodes: 1000, peers: 50, jitter: 0.25, spread: 0.15, seed: seed, rackSize: 40, local: 0.5, inside: 0.6,
			slowIn: map[int]float64{}, slowOut: map[int]float64{}}
		want := map[string]Kind{}
		for len(want) < c.nodes/20 {
			i := rng.IntN(c.nodes)
			if _, dup := want[nodeName(i)]; dup {
				continue
			}
			switch kind := []Kind{Inbound, Outbound, Both}[rng.IntN(3)]; kind {
			case Inbound:
				c.slowIn[i] = 10
				want[nodeName(i)] = kind
			case Outbound:
				c.slowOut[i] = 10
				want[nodeName(i)] = kind
			case Both:
				c.slowIn[i], c.slowOut[i] = 10, 10
				want[nodeName(i)] = kind
			}
		}
		cfg := DefaultConfig()
		cfg.Topology = c.topology(t)
		got := c.diagnose(t, cfg)
		for _, f := range got {
			if want[f.Node] != f.Kind {
				t.Errorf("seed %d: unexpected %+v", seed, f)
			}
		}
		if len(got) != len(want) {
			t.Errorf("seed %d: %d findings, want %d", seed, len(got), len(want))
		}
	}
}
