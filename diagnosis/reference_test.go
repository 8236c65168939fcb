package diagnosis

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// referencePolish is median polish written plainly, over maps, with the
// weighted medians of gonum's sorted Empirical quantile: what fit.polish
// does with selection over flat slices.
func referencePolish(cells map[[2]int32][2]float64) (mu float64, s, r map[int32]float64, res map[[2]int32]float64) {
	s, r, res = map[int32]float64{}, map[int32]float64{}, map[[2]int32]float64{}
	var all []pair
	for k, c := range cells {
		res[k] = c[0]
		s[k[0]], r[k[1]] = 0, 0
		all = append(all, pair{c[0], c[1]})
	}
	wmedian := func(ps []pair) float64 {
		sort.Slice(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
		x, w := make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			x[i], w[i] = p.x, p.w
		}
		return stat.Quantile(0.5, stat.Empirical, x, w)
	}
	center := func(effect map[int32]float64) {
		var xs []pair
		for _, e := range effect {
			xs = append(xs, pair{e, 1})
		}
		d := wmedian(xs)
		mu += d
		for id := range effect {
			effect[id] -= d
		}
	}
	sweep := func(effect map[int32]float64, side int) {
		groups := map[int32][]pair{}
		for k, e := range res {
			groups[k[side]] = append(groups[k[side]], pair{e, cells[k][1]})
		}
		for id, ps := range groups {
			d := wmedian(ps)
			effect[id] += d
			for k := range res {
				if k[side] == id {
					res[k] -= d
				}
			}
		}
	}
	mu = wmedian(all)
	for k := range res {
		res[k] -= mu
	}
	prev := math.Inf(1)
	for range maxSweeps {
		sweep(s, 0)
		center(r)
		sweep(r, 1)
		center(s)
		var sum float64
		for _, e := range res {
			sum += math.Abs(e)
		}
		if math.Abs(prev-sum) <= sweepTolerance*sum {
			break
		}
		prev = sum
	}
	return mu, s, r, res
}

// TestPolishMatchesReference compares the fit with the plain version on
// random sparse matrices. Weights are whole numbers (samples are squares),
// so that sums of weights are exact in either order.
func TestPolishMatchesReference(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 1))
		nodes := 3 + rng.IntN(25)
		cfg := DefaultConfig()
		cfg.MinSamples = 0
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cells := map[[2]int32][2]float64{}
		for range rng.IntN(nodes * nodes) {
			i, j := rng.IntN(nodes), rng.IntN(nodes)
			if i == j {
				continue
			}
			ms := math.Exp(rng.NormFloat64())
			if rng.IntN(4) == 0 {
				ms = float64(1 + rng.IntN(3)) // ties, as real data has
			}
			k := 1 + rng.IntN(5)
			if err := m.Add(nodeName(i), nodeName(j), ms, k*k, t0); err != nil {
				t.Fatal(err)
			}
			pi, _ := m.nodes.id(nodeName(i))
			pj, _ := m.nodes.id(nodeName(j))
			cells[[2]int32{pi, pj}] = [2]float64{math.Log(ms), float64(k)}
		}
		m.Diagnose(t0)
		f := &m.scratch
		if len(cells) == 0 {
			continue
		}
		mu, s, r, res := referencePolish(cells)
		near := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("seed %d: %s = %v, reference %v", seed, what, got, want)
			}
		}
		near("mu", f.mu, mu)
		for _, id := range slices.Sorted(maps.Keys(s)) {
			near("s", f.s[id], s[id])
		}
		for _, id := range slices.Sorted(maps.Keys(r)) {
			near("r", f.r[id], r[id])
		}
		for k, row := range f.rows {
			for c := f.start[k]; c < f.start[k+1]; c++ {
				near("residual", f.res[c], res[[2]int32{row, f.peer[c]}])
			}
		}
	}
}

// TestWeightedMedian checks the selection against gonum's quantile of the
// sorted values, with many ties.
func TestWeightedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 2000 {
		n := 1 + rng.IntN(80)
		p := make([]pair, n)
		for i := range p {
			p[i] = pair{float64(rng.IntN(1 + n/3)), float64(1 + rng.IntN(4))}
		}
		ref := slices.Clone(p)
		slices.SortFunc(ref, func(a, b pair) int { return int(a.x - b.x) })
		x, w := make([]float64, n), make([]float64, n)
		for i, e := range ref {
			x[i], w[i] = e.x, e.w
		}
		want := stat.Quantile(0.5, stat.Empirical, x, w)
		if got := weightedMedian(p); got != want {
			t.Fatalf("weightedMedian(%v) = %v, want %v", ref, got, want)
		}
	}
}

// TestPolishInsideRacks checks that, with a topology, the fit finds the
// effect of staying inside a rack and leaves the noise in the residuals.
func TestPolishInsideRacks(t *testing.T) {
	c := cluster{nodes: 300, peers: 40, jitter: 0.2, spread: 0.1, seed: 5, rackSize: 20, local: 0.5, inside: 0.4}
	cfg := DefaultConfig()
	cfg.Topology = c.topology(t)
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.fill(t, m, t0)
	if got := m.Diagnose(t0); len(got) != 0 {
		t.Fatalf("healthy cluster: %+v", got)
	}
	f := &m.scratch
	if want := math.Log(c.inside); math.Abs(f.delta-want) > 0.05 {
		t.Errorf("inside effect %.3f, want %.3f", f.delta, want)
	}
	if want := math.Log(2.0); math.Abs(f.mu-want) > 0.05 {
		t.Errorf("mu %.3f, want ln 2 ms = %.3f", f.mu, want)
	}
	if f.sigma < 0.15 || f.sigma > 0.25 {
		t.Errorf("residual deviation %.3f, want near the jitter 0.2", f.sigma)
	}
}
