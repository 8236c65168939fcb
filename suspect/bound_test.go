package suspect

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// madeUp returns a heartbeat's worth (reports.MaxRecentLatencies) of
// recent latencies of nodes nobody else names, the k-th batch of them.
func madeUp(k int) []reports.RecentLatency {
	rs := make([]reports.RecentLatency, reports.MaxRecentLatencies)
	for i := range rs {
		rs[i] = reports.RecentLatency{Node: fmt.Sprintf("made-up-%d-%d:9866", k, i), LatencyMs: 1, Blocks: 1}
	}
	return rs
}

// Reporters that name made-up nodes, 256 new ones a heartbeat ten times a
// second for a minute (a real agent gone rogue, and a reporter of
// its own), hold at most MaxPeers pairs each, and the nodes they name
// cost nothing once their pairs are replaced: the model stays within
// reporters × MaxPeers pairs and reporters × (MaxPeers + 1) nodes at
// every step. The honest reporters keep every pair, and a slow node among
// them is confirmed as without the flood.
func TestMadeUpNodesBounded(t *testing.T) {
	cfg := DefaultConfig()
	c := newCluster(t, 8, cfg, 0)
	c.run(warm)
	rogue, other := c.nodes[0], "10.9.9.9:9866"
	reporters := len(c.nodes) + 1
	check := func(when string) {
		t.Helper()
		pairs, _ := c.d.Pairs()
		if max := reporters * cfg.MaxPeers; pairs > max {
			t.Fatalf("%s: %d pairs, more than %d reporters × %d", when, pairs, reporters, cfg.MaxPeers)
		}
		if n, max := len(c.d.m.nodes), reporters*(cfg.MaxPeers+1); n > max {
			t.Fatalf("%s: %d nodes, more than %d", when, n, max)
		}
		checkPairs(t, c.d.m)
	}
	k := 0
	flood := func(d time.Duration) {
		t.Helper()
		for end := c.now.Add(d); c.now.Before(end); {
			for range 5 { // ten heartbeats a second, five each
				c.d.Observe(c.now, rogue, madeUp(k))
				c.d.Observe(c.now, other, madeUp(k+1))
				k += 2
			}
			c.run(500 * time.Millisecond)
			check(fmt.Sprintf("after %d batches", k))
		}
	}
	flood(time.Minute)
	if _, replaced := c.d.Pairs(); replaced < int64(k*reports.MaxRecentLatencies-2*cfg.MaxPeers) {
		t.Errorf("%d pairs replaced, want every made-up one past the first %d of each reporter", replaced, cfg.MaxPeers)
	}
	for _, a := range c.nodes[1:] {
		if n := len(c.d.m.nodes[a].out); n != len(c.nodes)-1 {
			t.Errorf("honest %s holds %d pairs, want %d", a, n, len(c.nodes)-1)
		}
	}
	s := c.nodes[3]
	c.lat = func(_ time.Time, _, b string) float64 {
		if b == s {
			return 10
		}
		return 1
	}
	flood(90 * time.Second)
	if got := c.confirmed(); len(got) != 1 || got[0] != s {
		t.Errorf("during the flood, confirmed %v, want [%s]", got, s)
	}
}

// Forget frees the pairs of a node, both ways, and the nodes only it
// named; the count of pairs follows.
func TestForgetFreesPairs(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(6)
	now := time.Unix(1000, 0)
	feed(d, now, ns, func(string, string) bool { return false })
	d.Observe(now, ns[0], madeUp(0)[:10])
	if pairs, _ := d.Pairs(); pairs != 6*5+10 {
		t.Fatalf("%d pairs, want %d", pairs, 6*5+10)
	}
	d.Forget(ns[0])
	pairs, _ := d.Pairs()
	if pairs != 5*4 {
		t.Errorf("after Forget: %d pairs, want %d", pairs, 5*4)
	}
	if n := len(d.m.nodes); n != 5 {
		t.Errorf("after Forget: %d nodes, want the 5 others (made-up ones it alone named freed)", n)
	}
	for _, a := range ns[1:] {
		if slices.Contains(d.m.reportersOf(d.m.nodes[a]), ns[0]) {
			t.Errorf("%s still has a pair from the forgotten node", a)
		}
		if slices.Contains(d.m.peersOf(d.m.nodes[a]), ns[0]) {
			t.Errorf("%s still has a pair to the forgotten node", a)
		}
	}
	checkPairs(t, d.m)
}

// A reporter with more peers than MaxPeers keeps its latest MaxPeers
// pairs: the oldest makes room.
func TestMaxPeersKeepsLatest(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxPeers = 4
	d := New(cfg)
	now := time.Unix(1000, 0)
	for i := range 10 {
		d.Observe(now.Add(time.Duration(i)*time.Second), "a:1", []reports.RecentLatency{{Node: fmt.Sprintf("p%d:1", i), LatencyMs: 1, Blocks: 1}})
	}
	pairs, replaced := d.Pairs()
	if pairs != 4 || replaced != 6 {
		t.Fatalf("%d pairs, %d replaced; want 4, 6", pairs, replaced)
	}
	for i := 6; i < 10; i++ {
		if d.m.outPair(d.m.nodes["a:1"], fmt.Sprintf("p%d:1", i)) == nil {
			t.Errorf("latest pair a → p%d forgotten", i)
		}
	}
	if n := len(d.m.nodes); n != 5 {
		t.Errorf("%d nodes, want a and its 4 peers", n)
	}
	checkPairs(t, d.m)
}
