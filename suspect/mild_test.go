package suspect

import (
	"slices"
	"testing"
	"time"
)

// mildWarmFor is how long a cluster of the mild tests runs healthy: the
// baselines take mildWarm looks of 16 to 20 s (16 blocks a look).
const mildWarmFor = 10 * time.Minute

// A node 1.7 to 3 times slower than it was, both ways, is confirmed by
// the mild rule as both, within a few minutes, and nothing else is. (The
// agents of this cluster cover their 39 peers in 39 s, so a look rests on
// about 16 blocks; the simulation's cover 79 in 15 s, and 1.5 is
// measured there.)
func TestMildConfirmed(t *testing.T) {
	for _, factor := range []float64{1.7, 2, 2.9} {
		c := newCluster(t, 40, DefaultConfig(), 0)
		c.run(mildWarmFor)
		fault, slow := c.now, c.nodes[7]
		c.lat = func(_ time.Time, a, b string) float64 {
			if a == slow || b == slow {
				return factor
			}
			return 1
		}
		c.run(5 * time.Minute)
		if got := c.confirmed(); !slices.Equal(got, []string{slow}) {
			t.Fatalf("%vx: confirmed %v, want %s", factor, got, slow)
		}
		if k := c.kindOf(slow); k != Both {
			t.Errorf("%vx: kind %s, want both", factor, k)
		}
		if d := c.entered[slow].At.Sub(fault); d > 3*time.Minute {
			t.Errorf("%vx: confirmed %v after the fault", factor, d)
		}
	}
}

// What the mild rule must not confirm: a node 1.5 times slower than the
// others from the start (the spread of a cluster's machines), a healthy
// cluster, pauses of seconds, and anything with the rule off.
func TestMildNotConfirmed(t *testing.T) {
	f := func(name string, cfg Config, lat func(a, b string) float64, pause time.Duration) {
		t.Helper()
		c := newCluster(t, 40, cfg, 0)
		victim := c.nodes[5]
		c.lat = func(_ time.Time, a, b string) float64 { return lat(a, b) }
		base := c.start
		c.paused = func(t time.Time, node string) bool {
			return node == victim && t.Sub(base)%(20*time.Second+250*time.Millisecond) < pause
		}
		c.run(mildWarmFor + 10*time.Minute)
		if got := c.confirmed(); len(got) > 0 {
			t.Errorf("%s: confirmed %v", name, got)
		}
	}
	one := func(a, b string) float64 { return 1 }
	f("healthy", DefaultConfig(), one, 0)
	f("pauses of 3 s every 20 s", DefaultConfig(), one, 3*time.Second)
	f("1.5x from the start", DefaultConfig(), func(a, b string) float64 {
		if a == "10.0.0.3:9866" || b == "10.0.0.3:9866" {
			return 1.5
		}
		return 1
	}, 0)
	off := DefaultConfig()
	off.MildRatio = 0
	c := newCluster(t, 40, off, 0)
	c.run(mildWarmFor)
	slow := c.nodes[7]
	c.lat = func(_ time.Time, a, b string) float64 {
		if a == slow || b == slow {
			return 2
		}
		return 1
	}
	c.run(5 * time.Minute)
	if got := c.confirmed(); len(got) > 0 {
		t.Errorf("mild rule off: confirmed %v", got)
	}
}

// A rack whose nodes are suspected at once is confirmed by rack rounds,
// every node of kind rack within a minute, each round asking at most
// Witnesses × (rackMembers + 1) probes, not a round for each node.
func TestRackRound(t *testing.T) {
	c := newCluster(t, 120, DefaultConfig(), 8)
	c.run(warm)
	fault := c.now
	inR1 := func(x string) bool { return c.rack[x] == "/r1" }
	var rack1 []string
	for _, x := range c.nodes {
		if inR1(x) {
			rack1 = append(rack1, x)
		}
	}
	slices.Sort(rack1)
	c.lat = func(_ time.Time, a, b string) float64 {
		if inR1(a) != inR1(b) {
			return 10
		}
		return 1
	}
	c.run(time.Minute)
	var got []string
	for _, x := range c.confirmed() {
		if inR1(x) {
			got = append(got, x)
		}
	}
	if !slices.Equal(got, rack1) {
		t.Fatalf("confirmed %v of the rack, want its %d nodes", got, len(rack1))
	}
	for _, x := range rack1 {
		if k := c.kindOf(x); k != Rack {
			t.Errorf("%s: kind %s, want rack", x, k)
		}
		if d := c.entered[x].At.Sub(fault); d > 60*time.Second {
			t.Errorf("%s confirmed %v after the fault", x, d)
		}
	}
	rs := c.d.rackSus["/r1"]
	if rs == nil || rs.state != Confirmed {
		t.Fatalf("rack suspicion of /r1: %+v, want confirmed", rs)
	}
	if most := DefaultRounds * DefaultWitnesses * (rackMembers + 1); len(rs.past) > most || len(rs.past) == 0 {
		t.Errorf("the rack's rounds asked %d probes, want 1 to %d", len(rs.past), most)
	}
	for _, x := range rack1 {
		if v := c.d.sus[x]; len(v.past) > 0 && v.passed > 0 && v.kind != Rack {
			t.Errorf("%s passed rounds of its own as %s", x, v.kind)
		}
	}
}
