package diagnosis

import (
	"testing"
)

// sloppy drops the figures of findings, keeping what they blame (and, for
// links, how many directions).
func sloppy(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		s := Finding{Node: f.Node, Kind: f.Kind, Peer: f.Peer, Rack: f.Rack}
		if f.Kind == Link {
			s.Reporters = f.Reporters
		}
		out = append(out, s)
	}
	return out
}

func TestDiagnoseKinds(t *testing.T) {
	f := func(name string, c cluster, want ...Finding) {
		t.Helper()
		cfg := DefaultConfig()
		if c.rackSize > 0 {
			cfg.Topology = c.topology(t)
		}
		got := c.diagnose(t, cfg)
		if g, w := sloppy(got), want; !equalFindings(g, w) {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	// 200 nodes, each measuring 60: 70 % of the cells missing.
	base := cluster{nodes: 200, peers: 60, jitter: 0.25, spread: 0.15, seed: 1, rackSize: 20}
	f("healthy", base)

	c := base
	c.slowIn = map[int]float64{7: 10}
	f("slow receiver", c, Finding{Node: nodeName(7), Kind: Inbound})

	c = base
	c.slowOut = map[int]float64{8: 10}
	f("slow sender", c, Finding{Node: nodeName(8), Kind: Outbound})

	c = base
	c.slowIn, c.slowOut = map[int]float64{9: 8}, map[int]float64{9: 8}
	f("slow host", c, Finding{Node: nodeName(9), Kind: Both})

	c = base
	c.slowLink = map[[2]int]float64{{3, 150}: 40, {150, 3}: 8}
	f("bad link, both ways", c, Finding{Node: nodeName(3), Kind: Link, Peer: nodeName(150), Reporters: 2})

	c = base
	c.slowLink = map[[2]int]float64{{150, 3}: 20}
	f("bad link, one way", c, Finding{Node: nodeName(150), Kind: Link, Peer: nodeName(3), Reporters: 1})

	c = base
	c.slowRack = map[int]float64{4: 10}
	f("slow rack", c, Finding{Node: "", Kind: Rack, Rack: "/rack4"})

	// HDFS puts the second and third replica in one rack: much traffic
	// stays inside, faster than across.
	local := base
	local.local, local.inside = 0.6, 0.5
	f("healthy, 60 % inside racks", local)

	c = local
	c.slowRack = map[int]float64{4: 10}
	f("slow rack uplink, 60 % inside racks", c, Finding{Kind: Rack, Rack: "/rack4"})

	c = local
	c.slowIn, c.slowLink = map[int]float64{45: 10}, map[[2]int]float64{{41, 60}: 30}
	f("slow receiver and link, 60 % inside racks", c,
		Finding{Node: nodeName(41), Kind: Link, Peer: nodeName(60), Reporters: 1},
		Finding{Node: nodeName(45), Kind: Inbound})

	c = base
	c.slowIn, c.slowOut = map[int]float64{7: 10}, map[int]float64{120: 6}
	c.slowLink = map[[2]int]float64{{30, 40}: 30}
	f("three faults", c,
		Finding{Node: nodeName(30), Kind: Link, Peer: nodeName(40), Reporters: 1},
		Finding{Node: nodeName(7), Kind: Inbound},
		Finding{Node: nodeName(120), Kind: Outbound})

	c = base
	c.slowIn = map[int]float64{10: 1.8, 11: 2}
	c.slowOut = map[int]float64{11: 1.5}
	f("two moderately slow hosts", c)

	c = base
	c.noisy = map[int]float64{10: 0.6, 11: 0.6}
	f("two noisy hosts", c)
}

// equalFindings compares what two lists blame, ignoring the node of a rack
// finding (its slowest node, which noise picks).
func equalFindings(got, want []Finding) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Kind == Rack && w.Kind == Rack {
			g.Node, w.Node = "", ""
		}
		if g != w {
			return false
		}
	}
	return true
}
