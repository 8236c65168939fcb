package suspect

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// warm is how long a cluster runs healthy before a fault: its levels
// are learned.
const warm = 2 * time.Minute

// Each kind of fault is confirmed with its kind, within two rounds of
// the evidence, and nothing else is.
func TestFaultsConfirmed(t *testing.T) {
	f := func(name string, nodes, racks int, slow func(a, b string) bool, wantTargets []string, want Kind) {
		t.Helper()
		c := newCluster(t, nodes, DefaultConfig(), racks)
		c.run(warm)
		fault := c.now
		c.lat = func(_ time.Time, a, b string) float64 {
			if slow(a, b) {
				return 10
			}
			return 1
		}
		c.run(90 * time.Second)
		if got := c.confirmed(); !slices.Equal(got, wantTargets) {
			t.Fatalf("%s: confirmed %v, want %v (verdicts %+v)", name, got, wantTargets, c.verdicts)
		}
		for _, target := range wantTargets {
			v := c.entered[target]
			if k := c.kindOf(target); k != want {
				t.Errorf("%s: %s confirmed as %s, want %s", name, target, k, want)
			}
			// The evidence is in within a coverage round and a
			// heartbeat; then the first round RoundGap after, the
			// second RoundGap after the first, each taking up to a
			// heartbeat to be asked and half a second to be answered.
			if d := v.At.Sub(v.Since); d > 3*DefaultRoundGap+2*(heartbeat+time.Second) {
				t.Errorf("%s: %s confirmed %v after the suspicion, more than two rounds", name, target, d)
			}
			if d := v.At.Sub(fault); d > 30*time.Second {
				t.Errorf("%s: %s confirmed %v after the fault", name, target, d)
			}
		}
	}
	n := func(i int) string { return newCluster(t, 12, DefaultConfig(), 0).nodes[i] }
	s, a, b := n(2), n(4), n(7)
	f("slow receiver", 8, 0, func(_, b string) bool { return b == s }, []string{s}, Inbound)
	f("slow sender", 8, 0, func(a, _ string) bool { return a == s }, []string{s}, Outbound)
	f("slow host", 8, 0, func(a, b string) bool { return a == s || b == s }, []string{s}, Both)
	f("slow link", 8, 0, func(x, y string) bool { return x == a && y == b }, []string{linkEntity(a, b)}, Link)
	// Racks /r0../r2 of 12 nodes: /r1 holds nodes 1, 4, 7, 10; its
	// links from other racks are slow.
	c := newCluster(t, 12, DefaultConfig(), 3)
	inR1 := func(x string) bool { return c.rack[x] == "/r1" }
	var rack1 []string
	for _, x := range c.nodes {
		if inR1(x) {
			rack1 = append(rack1, x)
		}
	}
	slices.Sort(rack1)
	f("slow rack", 12, 3, func(x, y string) bool { return inR1(y) && !inR1(x) }, rack1, Rack)
	f("4 nodes, slow receiver", 4, 0, func(_, y string) bool { return y == s }, []string{s}, Inbound)
	f("4 nodes, slow host", 4, 0, func(x, y string) bool { return x == s || y == s }, []string{s}, Both)
	f("4 nodes, slow sender", 4, 0, func(x, _ string) bool { return x == s }, []string{s}, Outbound)
	f("4 nodes, slow link", 4, 0, func(x, y string) bool { return x == n(0) && y == n(1) }, []string{linkEntity(n(0), n(1))}, Link)
	f("6 nodes, slow host", 6, 0, func(x, y string) bool { return x == s || y == s }, []string{s}, Both)
	f("6 nodes, slow link", 6, 0, func(x, y string) bool { return x == a && y == n(1) }, []string{linkEntity(a, n(1))}, Link)
	// A node slow from the very start: no level learned before it.
	f0 := func(name string, slow func(a, b string) bool, want Kind) {
		t.Helper()
		c := newCluster(t, 6, DefaultConfig(), 0)
		c.lat = func(_ time.Time, a, b string) float64 {
			if slow(a, b) {
				return 10
			}
			return 1
		}
		c.run(60 * time.Second)
		if got := c.confirmed(); !slices.Equal(got, []string{s}) || c.kindOf(s) != want {
			t.Errorf("%s: confirmed %v (kind %s), want %s %s", name, got, c.kindOf(s), s, want)
		}
	}
	f0("slow receiver from the start", func(_, b string) bool { return b == s }, Inbound)
	f0("slow sender from the start", func(a, _ string) bool { return a == s }, Outbound)
	f0("slow host from the start", func(a, b string) bool { return a == s || b == s }, Both)
}

// What must never be confirmed: pauses of a few seconds of one node, a
// slowdown of every node at once, a mild slowdown (left to the second
// line), and a healthy cluster.
func TestNotConfirmed(t *testing.T) {
	f := func(name string, nodes int, run func(c *cluster)) {
		t.Helper()
		c := newCluster(t, nodes, DefaultConfig(), 0)
		c.run(warm)
		run(c)
		if got := c.confirmed(); len(got) > 0 {
			t.Errorf("%s: confirmed %v", name, got)
		}
	}
	f("healthy", 12, func(c *cluster) { c.run(10 * time.Minute) })
	// A pause of 2, 3 and 4 s of one node, every 20 s, at every phase
	// against the heartbeats and the steps.
	for _, pause := range []time.Duration{2 * time.Second, 3 * time.Second, 4 * time.Second} {
		f("pauses of "+pause.String(), 8, func(c *cluster) {
			base := c.now
			victim := c.nodes[3]
			c.paused = func(t time.Time, node string) bool {
				if node != victim {
					return false
				}
				// a pause starting every 20.25 s: its phase drifts
				since := t.Sub(base) % (20*time.Second + 250*time.Millisecond)
				return since < pause
			}
			c.run(15 * time.Minute)
			if len(c.verdicts) == 0 {
				t.Errorf("pauses of %v: never suspected: the test shows nothing", pause)
			}
		})
	}
	f("every node 4x slower", 8, func(c *cluster) {
		c.lat = func(time.Time, string, string) float64 { return 4 }
		c.run(3 * time.Minute)
	})
	f("one node 1.5x slower", 8, func(c *cluster) {
		slow := c.nodes[1]
		c.lat = func(_ time.Time, a, b string) float64 {
			if a == slow || b == slow {
				return 1.5
			}
			return 1
		}
		c.run(5 * time.Minute)
		if v := c.d.Suspects(c.now); len(v) > 0 {
			t.Errorf("1.5x: suspects %+v", v)
		}
	})
}

// With 3 DataNodes a slow receiver is still confirmed (two witnesses,
// each the other's control), but nothing else: a slow host is 4 of the 6
// pairs, so the cluster's level is its own; one reporter against two
// peers has no third node to tell a slow sender from two slow links, so
// neither a sender nor a link is suspected.
func TestThreeNodes(t *testing.T) {
	f := func(name string, slow func(c *cluster, a, b string) bool, want []string, kind Kind) {
		t.Helper()
		c := newCluster(t, 3, DefaultConfig(), 0)
		c.run(warm)
		c.lat = func(_ time.Time, a, b string) float64 {
			if slow(c, a, b) {
				return 10
			}
			return 1
		}
		c.run(2 * time.Minute)
		if got := c.confirmed(); !slices.Equal(got, want) {
			t.Fatalf("%s: confirmed %v, want %v", name, got, want)
		}
		for _, target := range want {
			if k := c.kindOf(target); k != kind {
				t.Errorf("%s: %s is %s, want %s", name, target, k, kind)
			}
		}
	}
	s := newCluster(t, 3, DefaultConfig(), 0).nodes[1]
	f("receiver", func(_ *cluster, _, b string) bool { return b == s }, []string{s}, Inbound)
	f("host", func(_ *cluster, a, b string) bool { return a == s || b == s }, nil, "")
	f("sender", func(_ *cluster, a, _ string) bool { return a == s }, nil, "")
	f("link", func(c *cluster, a, b string) bool { return a == s && b == c.nodes[0] }, nil, "")
}

// A confirmed node stays confirmed while its evidence shows it slow, and
// leaves HoldFor after it heals.
func TestHold(t *testing.T) {
	c := newCluster(t, 6, DefaultConfig(), 0)
	c.run(warm)
	s := c.nodes[2]
	c.lat = func(_ time.Time, _, b string) float64 {
		if b == s {
			return 10
		}
		return 1
	}
	c.run(5 * time.Minute)
	if got := c.d.Confirmed(c.now); len(got) != 1 || got[0].Target != s {
		t.Fatalf("after 5 minutes slow: confirmed %+v, want %s", got, s)
	}
	c.lat = func(time.Time, string, string) float64 { return 1 }
	c.run(20 * time.Second)
	if got := c.d.Confirmed(c.now); len(got) != 1 {
		t.Fatalf("20 s after healing: confirmed %+v, want still %s", got, s)
	}
	c.run(HoldFor + time.Minute)
	if got := c.d.Confirmed(c.now); len(got) != 0 {
		t.Fatalf("healed: confirmed %+v", got)
	}
	if v := c.d.Suspects(c.now); len(v) != 0 {
		t.Fatalf("healed: suspects %+v", v)
	}
	if n := len(c.entered); n != 1 {
		t.Fatalf("confirmed %d targets", n)
	}
}

// Agents that probe only some peers (each of 40 nodes in 4 racks the 8
// after it) are asked to probe only those, and every kind of fault is
// still confirmed with its kind.
func TestPartialPeers(t *testing.T) {
	f := func(name string, slow func(a, b string) bool, target func(c *cluster) string, want Kind) {
		t.Helper()
		c := newCluster(t, 40, DefaultConfig(), 4)
		c.peers = map[string][]string{}
		for i, a := range c.nodes {
			for k := 1; k <= 8; k++ {
				c.peers[a] = append(c.peers[a], c.nodes[(i+k)%len(c.nodes)])
			}
		}
		c.run(warm)
		c.lat = func(_ time.Time, a, b string) float64 {
			if slow(a, b) {
				return 10
			}
			return 1
		}
		c.run(90 * time.Second)
		if got, want := c.confirmed(), []string{target(c)}; !slices.Equal(got, want) {
			t.Fatalf("%s: confirmed %v, want %v", name, got, want)
		}
		if k := c.kindOf(target(c)); k != want {
			t.Errorf("%s: confirmed as %s, want %s", name, k, want)
		}
		// Nothing else was suspected: the first far blocks of a slow
		// sender open no suspicion of its links, whose rounds would
		// spend its confirmation budget.
		for _, v := range c.verdicts {
			if v.Target != target(c) {
				t.Errorf("%s: a verdict of %s: %+v", name, v.Target, v)
			}
		}
	}
	n := func(i int) string { return newCluster(t, 40, DefaultConfig(), 0).nodes[i] }
	s, a, b := n(5), n(20), n(23)
	node := func(*cluster) string { return s }
	f("slow receiver", func(_, y string) bool { return y == s }, node, Inbound)
	f("slow sender", func(x, _ string) bool { return x == s }, node, Outbound)
	f("slow host", func(x, y string) bool { return x == s || y == s }, node, Both)
	f("slow link", func(x, y string) bool { return x == a && y == b }, func(*cluster) string { return linkEntity(a, b) }, Link)
}

// On a LAN of a few hundredths of a millisecond a block three times its
// expected latency is noise, not evidence: a latency opens a suspicion
// only when it is also MinExcessMs above. Blocks of 0.05 ms, a quarter of
// them 3.5 times as long, beside one bad pair at 27 ms each way (a link
// limited to 20 Mbit): the link is confirmed, nothing else is suspected.
// With noise of more than a millisecond (blocks of 0.3 ms, one in ten
// 1.5 ms: a loaded machine), the far end of the link is now and then a
// receiver suspect (the link's own latency and one spike); the link's
// rounds, once asked, go on, and the link is confirmed all the same.
func TestNoisyLAN(t *testing.T) {
	f := func(name string, baseMs, spikeMs, spikes float64, onlyLink bool) {
		t.Helper()
		c := newCluster(t, 8, DefaultConfig(), 0)
		noise := rand.New(rand.NewPCG(8, 9))
		a, b := c.nodes[2], c.nodes[3]
		healthy := func(_ time.Time, x, y string) float64 {
			if noise.Float64() < spikes {
				return spikeMs
			}
			return baseMs
		}
		c.lat = healthy
		c.run(warm)
		c.lat = func(now time.Time, x, y string) float64 {
			if x == a && y == b || x == b && y == a {
				return 27
			}
			return healthy(now, x, y)
		}
		fault := c.now
		c.run(2 * time.Minute)
		link := linkEntity(a, b)
		if got := c.confirmed(); !slices.Equal(got, []string{link}) || c.kindOf(link) != Link {
			t.Fatalf("%s: confirmed %v (kind %s), want %s", name, got, c.kindOf(link), link)
		}
		if d := c.entered[link].At.Sub(fault); d > 30*time.Second {
			t.Errorf("%s: link confirmed %v after the fault", name, d)
		}
		others := 0
		for _, v := range c.verdicts {
			if v.Target != link {
				others++
			}
		}
		if onlyLink && others > 0 {
			t.Errorf("%s: %d verdicts of other targets", name, others)
		}
		if !onlyLink && others == 0 {
			t.Errorf("%s: nothing else suspected: the case shows nothing", name)
		}
	}
	f("hundredths of a millisecond", 0.05, 0.175, 0.25, true)
	f("noise above a millisecond", 0.3, 1.5, 0.1, false)
}
