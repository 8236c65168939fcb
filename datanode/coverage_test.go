package datanode

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func TestCoverage(t *testing.T) {
	f := func(peers int, want Coverage) {
		t.Helper()
		if got := DefaultConfig().Coverage(peers); got != want {
			t.Fatalf("Coverage(%d) = %+v, want %+v", peers, got, want)
		}
	}
	// 16 packets a second, a round within 15 s.
	f(0, Coverage{Packets: 16, Every: time.Second})
	f(3, Coverage{Packets: 16, Every: time.Second, Round: 3 * time.Second})
	f(15, Coverage{Packets: 16, Every: time.Second, Round: 15 * time.Second})
	f(40, Coverage{Packets: 6, Every: 375 * time.Millisecond, Round: 15 * time.Second})
	f(240, Coverage{Packets: 1, Every: 62500 * time.Microsecond, Round: 15 * time.Second})
	f(999, Coverage{Packets: 1, Every: 62500 * time.Microsecond, Round: 999 * 62500 * time.Microsecond})

	// slowpeer.probe.max.bandwidth caps the pace: 2 MiB/s of 64 KiB packets.
	cfg := DefaultConfig()
	cfg.ProbeInterval, cfg.ProbeMaxBytesPerSecond = time.Second/4, 2<<20
	if got, want := cfg.Coverage(10), (Coverage{Packets: 16, Every: 500 * time.Millisecond, Round: 5 * time.Second}); got != want {
		t.Fatalf("capped Coverage(10) = %+v, want %+v", got, want)
	}
}

// Every peer gets a block at least every slowpeer.probe.coverage, in
// synthetic time, whatever the shuffles, as long as Coverage is met; the
// pace sends no more packets than ProbePackets every ProbeInterval.
func TestRoundsCoverEveryPeer(t *testing.T) {
	f := func(peers int, cfg Config) {
		t.Helper()
		c := cfg.Coverage(peers)
		if !c.Met(cfg.ProbeCoverage) {
			t.Fatalf("%d peers: %+v does not meet %v", peers, c, cfg.ProbeCoverage)
		}
		names := make([]string, peers)
		for i := range names {
			names[i] = fmt.Sprintf("10.0.%d.%d:9866", i/200, i%200)
		}
		r := NewRounds(names, rand.New(rand.NewPCG(uint64(peers), 7)))
		last := map[string]time.Duration{}
		span := 20 * cfg.ProbeCoverage
		blocks := 0
		for at := time.Duration(0); at < span; at += c.Every {
			p := r.Next()
			if prev, ok := last[p]; ok && at-prev > cfg.ProbeCoverage {
				t.Fatalf("%d peers: %s measured at %v, then not until %v", peers, p, prev, at)
			}
			last[p] = at
			blocks++
		}
		for _, p := range names {
			if at, ok := last[p]; !ok || span-at > cfg.ProbeCoverage {
				t.Fatalf("%d peers: %s last measured at %v of %v", peers, p, at, span)
			}
		}
		budget := float64(cfg.ProbePackets) * span.Seconds() / cfg.ProbeInterval.Seconds()
		if sent := float64(blocks * c.Packets); sent > budget+float64(c.Packets) {
			t.Fatalf("%d peers: %v packets in %v, more than %v", peers, sent, span, budget)
		}
	}
	for _, n := range []int{1, 2, 3, 11, 15, 40, 120, 240} {
		f(n, DefaultConfig())
		f(n, DefaultLocalConfig())
	}
}

func TestRoundsShuffleEachRound(t *testing.T) {
	peers := []string{"a:1", "b:1", "c:1", "d:1", "e:1", "f:1"}
	r := NewRounds(peers, rand.New(rand.NewPCG(1, 2)))
	orders := map[string]bool{}
	for range 50 {
		seen := map[string]bool{}
		order := ""
		for range peers {
			p := r.Next()
			if seen[p] {
				t.Fatalf("%s twice in one round", p)
			}
			seen[p] = true
			order += p
		}
		orders[order] = true
	}
	if len(orders) < 20 {
		t.Fatalf("%d distinct orders in 50 rounds: not shuffled each round", len(orders))
	}
	if got := NewRounds(nil, rand.New(rand.NewPCG(1, 2))).Next(); got != "" {
		t.Fatalf("Next without peers = %q", got)
	}
}
