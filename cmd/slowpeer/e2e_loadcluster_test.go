//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
)

// The made-up cluster of TestServiceLoad: who the nodes are, which peers
// each one mirrors packets to, which nodes are slow, and the heartbeat
// bodies each node sends.

const (
	// loadRackSize is the nodes of a rack: a 42U rack of 1U servers less
	// its switches.
	loadRackSize = 40
	// loadMinPeers and loadMaxPeers bound the downstream peers one node
	// has measured: HDFS writes three replicas, so a node mirrors to the
	// nodes after it in the pipelines it is part of, and its coverage
	// rounds probe every peer it is given; 50 to 79 on a busy cluster.
	loadMinPeers, loadMaxPeers = 50, 79
	// loadSlowFraction is the share of nodes that are slow all along.
	loadSlowFraction = 0.01
	// loadSamples is the packets timed per peer over a report interval,
	// above Hadoop's min.outlier.detection.samples (1000).
	loadSamples = 1840
	// loadIncidentEvery and loadIncidentFor: every loadIncidentEvery one
	// more node becomes slow for loadIncidentFor (its peers' recent
	// latencies show it, their reports do not), so that the fast path
	// opens suspicions and asks for probes all through the run.
	loadIncidentEvery, loadIncidentFor = 15 * time.Second, 45 * time.Second
)

// loadCluster is the made-up cluster. Node i is in rack i/loadRackSize.
type loadCluster struct {
	nodes []string // "host:port" of each node
	slow  []bool   // whether each node is slow all along
	// plain is each node's heartbeat without a report; report is its
	// heartbeat with one (slowPeers, and peerLatencies when asked); both
	// without their closing brace, for the recentLatencies that follow.
	plain, report [][]byte
	// reportPhase is when, within the report interval, each node sends
	// its report: agents start at different times, so their reports are
	// spread over the interval.
	reportPhase []time.Duration
	// peers are each node's peers; normalMs and slowMs the latency of
	// its blocks to each, when the peer is healthy and when it is slow.
	peers            [][]int32
	normalMs, slowMs [][]float32
	// every is the time between two of each node's coverage blocks
	// (datanode.Config.Coverage at the defaults).
	every []time.Duration
	// incidents are the nodes slow for a while, in order: incident k
	// from loadIncidentEvery·(k+1) after the start, for loadIncidentFor.
	incidents []int
}

// newLoadCluster makes a cluster of n nodes from seed. Each node measures
// 50 to 79 peers, half in its own rack and half in one or two others (a
// pipeline's second replica is off-rack and its third in the second's
// rack), a normal peer at 1.5 to 2.5 ms and a slow one at 30 to 60 ms. Its
// report names the peers the outlier test flags, as the agent's would,
// and carries at most reports.DefaultMaxPeerLatencies peerLatencies, as
// the agent's does.
func newLoadCluster(n int, seed uint64, reportInterval time.Duration, peerLatencies bool) *loadCluster {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := &loadCluster{nodes: make([]string, n), slow: make([]bool, n), plain: make([][]byte, n),
		report: make([][]byte, n), reportPhase: make([]time.Duration, n), peers: make([][]int32, n),
		normalMs: make([][]float32, n), slowMs: make([][]float32, n), every: make([]time.Duration, n)}
	for i := range c.nodes {
		rack := i / loadRackSize
		c.nodes[i] = fmt.Sprintf("10.%d.%d.%d:9866", 1+rack/256, rack%256, 1+i%loadRackSize)
		c.reportPhase[i] = time.Duration(rng.Int64N(int64(reportInterval)))
	}
	perm := rng.Perm(n)
	nslow := max(1, int(float64(n)*loadSlowFraction))
	for _, i := range perm[:nslow] {
		c.slow[i] = true
	}
	c.incidents = perm[nslow:]
	det := outlier.New(outlier.DefaultMinResources, outlier.DefaultLowThreshold)
	cfg := datanode.DefaultConfig()
	for i := range c.nodes {
		hb := reports.Heartbeat{Node: c.nodes[i], HTTPAddress: c.httpAddress(i)}
		c.plain[i] = openJSON(hb)
		var samples []outlier.Sample
		for _, p := range c.peersOf(rng, i) {
			normal, slow := 1.5+rng.Float64(), 30+rng.Float64()*30
			c.peers[i] = append(c.peers[i], int32(p))
			c.normalMs[i] = append(c.normalMs[i], float32(normal))
			c.slowMs[i] = append(c.slowMs[i], float32(slow))
			ms := normal
			if c.slow[p] {
				ms = slow
			}
			samples = append(samples, outlier.Sample{Name: c.nodes[p], LatencyMs: ms})
			if len(hb.PeerLatencies) < reports.DefaultMaxPeerLatencies {
				hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: c.nodes[p], LatencyMs: ms,
					Samples: int64(loadSamples + rng.IntN(200))})
			}
		}
		c.every[i] = cfg.Coverage(len(c.peers[i])).Every
		if !peerLatencies {
			hb.PeerLatencies = nil
		}
		r := det.Detect(samples)
		hb.SlowPeers = []reports.SlowPeer{}
		for _, o := range r.Outliers {
			hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{Node: o.Name, LatencyMs: o.LatencyMs,
				MedianMs: r.MedianMs, MADMs: r.MADMs, UpperLimitMs: r.UpperLimitMs})
		}
		c.report[i] = openJSON(hb)
	}
	return c
}

// slowAt reports whether node p is slow at d after the start: slow all
// along, or in an incident.
func (c *loadCluster) slowAt(p int, d time.Duration) bool {
	if c.slow[p] {
		return true
	}
	k := int(d/loadIncidentEvery) - 1 // the latest incident begun
	for ; k >= 0 && d < loadIncidentEvery*time.Duration(k+1)+loadIncidentFor; k-- {
		if k < len(c.incidents) && c.incidents[k] == p {
			return true
		}
	}
	return false
}

// peersOf picks node i's peers: half in its own rack, the rest in one
// or two other racks, never i itself, each once.
func (c *loadCluster) peersOf(rng *rand.Rand, i int) []int {
	n := len(c.nodes)
	want := min(n-1, loadMinPeers+rng.IntN(loadMaxPeers-loadMinPeers+1))
	racks := (n + loadRackSize - 1) / loadRackSize
	own := i / loadRackSize
	others := []int{rng.IntN(racks), rng.IntN(racks)}
	seen := map[int]bool{i: true}
	var peers []int
	for tries := 0; len(peers) < want && tries < 100*want; tries++ {
		rack := own
		if len(peers)%2 == 1 {
			rack = others[len(peers)/2%2]
		}
		p := rack*loadRackSize + rng.IntN(loadRackSize)
		if p >= n || seen[p] {
			continue
		}
		seen[p] = true
		peers = append(peers, p)
	}
	return peers
}

// httpAddress is node i's own HTTP port, on the host of its id.
func (c *loadCluster) httpAddress(i int) string {
	return c.nodes[i][:len(c.nodes[i])-len("9866")] + "9864"
}

// slowNodes returns the names of the slow nodes.
func (c *loadCluster) slowNodes() map[string]bool {
	s := map[string]bool{}
	for i, slow := range c.slow {
		if slow {
			s[c.nodes[i]] = true
		}
	}
	return s
}

// openJSON returns v's JSON object without its closing brace.
func openJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil || len(b) < 2 || b[len(b)-1] != '}' {
		panic(fmt.Sprintf("BUG: encode %T: %v", v, err))
	}
	return b[:len(b)-1]
}
