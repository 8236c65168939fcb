package diagnosis

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// TestReplaceSequences replays random sequences of reports (Replace),
// Forget, ForgetNode and Expire on small matrices, with racks or
// without, times going back and forth, peers repeated, the reporter
// among its own peers and the matrix full, and diagnoses after each
// step: a reporter's row is then the distinct peers of its last report
// (at most MaxPeers), Diagnose never panics and its findings' latencies
// are finite and positive.
func TestReplaceSequences(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 11))
		cfg := DefaultConfig()
		cfg.MaxPeers = 2 + rng.IntN(40)
		cfg.MaxReporters = 2 + rng.IntN(30)
		cfg.MaxAge = time.Duration(1+rng.IntN(30)) * time.Minute
		cfg.MinSamples = rng.IntN(12)
		cfg.MinPairs = 1 + rng.IntN(5)
		nodes := 3 + rng.IntN(40)
		if rng.IntN(2) == 0 {
			cfg.Topology = cluster{nodes: nodes, rackSize: 1 + rng.IntN(8)}.topology(t)
		}
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		for step := range 60 {
			now = now.Add(time.Duration(rng.IntN(600)-100) * time.Second)
			r := nodeName(rng.IntN(nodes))
			switch rng.IntN(10) {
			case 0:
				m.Forget(r)
			case 1:
				m.ForgetNode(r)
			case 2:
				m.Expire(now)
			default:
				ps, distinct := randomReport(rng, r, nodes)
				at := now.Add(time.Duration(rng.IntN(1200)-600) * time.Second)
				err := m.Replace(r, ps, at)
				if errors.Is(err, ErrFull) {
					break
				}
				if err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				if got, want := rowLen(m, r, at), min(distinct, cfg.MaxPeers); got != want {
					t.Fatalf("seed %d step %d: %s has %d cells after its report of %d peers, want %d",
						seed, step, r, got, distinct, want)
				}
			}
			for _, f := range m.Diagnose(now.Add(time.Duration(rng.IntN(600)-300) * time.Second)) {
				if !(f.LatencyMs > 0 && f.MedianMs > 0) || math.IsInf(f.LatencyMs, 0) || math.IsInf(f.MedianMs, 0) {
					t.Fatalf("seed %d step %d: finding %+v", seed, step, f)
				}
			}
		}
	}
}

// randomReport is a report of reporter on random peers of nodes, some
// repeated, perhaps itself, latencies from 0 to 1e300 ms, samples from 0
// to the most; and the number of distinct peers other than reporter.
func randomReport(rng *rand.Rand, reporter string, nodes int) ([]reports.PeerLatency, int) {
	var ps []reports.PeerLatency
	seen := map[string]bool{}
	for range rng.IntN(60) {
		ms := rng.ExpFloat64()
		switch rng.IntN(20) {
		case 0:
			ms = 0
		case 1:
			ms = 1e300
		}
		samples := int64(rng.IntN(40))
		if rng.IntN(20) == 0 {
			samples = math.MaxInt64
		}
		p := reports.PeerLatency{Node: nodeName(rng.IntN(nodes)), LatencyMs: ms, Samples: samples}
		ps = append(ps, p)
		if p.Node != reporter {
			seen[p.Node] = true
		}
	}
	return ps, len(seen)
}

// rowLen is the number of cells of reporter valid at at.
func rowLen(m *Matrix, reporter string, at time.Time) int {
	n := 0
	for _, c := range m.Cells(at, 0) {
		if c.Reporter == reporter {
			n++
		}
	}
	return n
}
