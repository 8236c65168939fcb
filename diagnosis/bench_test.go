package diagnosis

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDiagnose measures one Diagnose of a warm Matrix, as the service
// runs it every report interval: N nodes each measuring 50 or 200 peers,
// one slow receiver, one slow sender and one bad link, with racks of 20.
func BenchmarkDiagnose(b *testing.B) {
	for _, size := range []struct{ nodes, peers int }{{1000, 50}, {10000, 50}, {10000, 200}} {
		b.Run(fmt.Sprintf("nodes=%d,peers=%d", size.nodes, size.peers), func(b *testing.B) {
			c := cluster{nodes: size.nodes, peers: size.peers, jitter: 0.25, spread: 0.15, seed: 7, rackSize: 20,
				slowIn: map[int]float64{5: 10}, slowOut: map[int]float64{6: 10},
				slowLink: map[[2]int]float64{{1, 2}: 30}}
			cfg := DefaultConfig()
			cfg.Topology = c.topology(b)
			m, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			c.fill(b, m, t0)
			now := t0.Add(time.Minute)
			if got := m.Diagnose(now); len(got) != 3 {
				b.Fatalf("%d findings, want 3: %+v", len(got), got)
			}
			b.ReportAllocs()
			for b.Loop() {
				m.Diagnose(now)
			}
		})
	}
}

// BenchmarkAdd measures Add of a cell the matrix already holds (the steady
// state: every report interval each agent sends its peers again), at
// 10 000 nodes × 50 peers.
func BenchmarkAdd(b *testing.B) {
	c := cluster{nodes: 10000, peers: 50, jitter: 0.25, seed: 7}
	m, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	c.fill(b, m, t0)
	type pairOf struct{ from, to string }
	var pairs []pairOf
	for _, r := range m.rows[:100] {
		for _, cl := range r.cells {
			pairs = append(pairs, pairOf{m.nodes.name[r.reporter], m.nodes.name[cl.peer]})
		}
	}
	at := t0.Add(time.Minute)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pairs[i%len(pairs)]
		if err := m.Add(p.from, p.to, 2, 1000, at); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
