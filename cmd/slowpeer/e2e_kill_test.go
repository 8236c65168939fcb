//go:build e2e

package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
)

// e2eGoneBound is how long after the slow agent is killed it may still be
// in /slowpeers. Each agent dials the dead node's data port whenever a
// probe pipeline starts with it (one block in e2eAgents−1 on average,
// every probe interval P), or as a relay, and is refused at once; it drops
// the node after F failures in a row, about F × P × (e2eAgents−1) =
// 3 × 50 ms × 11 ≈ 1.7 s. Its next report, due at most R + H later (5 s +
// 1 s), no longer names the node and replaces the one that did. Twice
// the sum is 15 s. (Without the drop, the node stayed reported for the
// three minutes the rolling windows span.)
var e2eGoneBound = 2 * (time.Duration(datanode.DefaultProbeMaxFailures*(e2eAgents-1))*datanode.DefaultLocalConfig().ProbeInterval +
	datanode.DefaultLocalConfig().ReportInterval + datanode.DefaultLocalConfig().HeartbeatInterval)

// TestEndToEndKilledSlowNode kills (SIGKILL) the slow agent of a cluster
// once its peers report it, and checks that it leaves /slowpeers within
// e2eGoneBound: a dead node is not a slow node.
func TestEndToEndKilledSlowNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a cluster of 13 processes for about half a minute")
	}
	c := startCluster(t, buildSlowpeer(t), e2eSlow)
	victim := c.agents[e2eSlow]
	c.waitFor(t, "the slow node reported by 2 peers", e2eBound, func() bool {
		nodes := c.slowPeers(t)
		return len(nodes) == 1 && nodes[0].Node == victim.id && len(nodes[0].Reporters) >= 2
	})
	found := time.Since(c.live)
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-victim.exited
	killed := time.Now()
	c.agents = slices.DeleteFunc(c.agents, func(p *proc) bool { return p == victim }) // its exit is no failure

	c.waitFor(t, "the killed node to leave /slowpeers", e2eGoneBound, func() bool {
		return len(c.slowPeers(t)) == 0
	})
	gone := time.Since(killed)
	// It stays out: nobody measures it any more.
	for range 4 {
		c.wait(t)
		if nodes := c.slowPeers(t); len(nodes) != 0 {
			c.fail(t, "after the killed node left, /slowpeers names %+v", nodes)
		}
	}
	first, last, n := dropTimes(c, victim.id, killed)
	t.Logf("slow node %s found %v after start; killed, %d agents dropped it %v to %v after, and it left /slowpeers after %v (bound %v)",
		victim.id, found.Round(10*time.Millisecond), n, first.Round(10*time.Millisecond), last.Round(10*time.Millisecond),
		gone.Round(10*time.Millisecond), e2eGoneBound)
	c.stop(t)
}

// dropTimes reads from the agents' logs when each dropped node, as time
// since killed: the first and last, and how many agents did.
func dropTimes(c *cluster, node string, killed time.Time) (first, last time.Duration, n int) {
	for _, p := range c.agents {
		for _, line := range strings.Split(p.logText(), "\n") {
			if !strings.Contains(line, `msg="peer unreachable`) || !strings.Contains(line, " peer="+node+" ") {
				continue
			}
			stamp, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
			at, err := time.Parse(time.RFC3339Nano, stamp)
			if err != nil {
				continue
			}
			d := at.Sub(killed)
			if n == 0 || d < first {
				first = d
			}
			last = max(last, d)
			n++
			break
		}
	}
	return first, last, n
}
