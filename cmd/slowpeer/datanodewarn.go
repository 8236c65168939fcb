package main

import (
	"fmt"

	"github.com/slowpeer/slowpeer/datanode"
)

// fastPathMinPeers is the fewest peers an agent needs for the fast path
// to tell a slow node from a slow link or a slow agent: a cluster of 4
// DataNodes.
const fastPathMinPeers = 3

// peerWarnings says what an agent that probes (no -hadoop-jmx) with cfg
// cannot do: without -peers it probes nobody; with fewer peers than
// dfs.datanode.min.outlier.detection.nodes Hadoop's outlier test is always
// skipped for lack of data, so it never sends a slow-peer report (nor the
// measurements the diagnosis uses), and only the fast path, from 4
// DataNodes, can find a slow node; with more peers than its probe
// bandwidth covers within slowpeer.probe.coverage a slow peer or link may
// go unmeasured longer.
func peerWarnings(cfg datanode.Config) []string {
	if cfg.HadoopJMX != "" || cfg.PeerMetrics != nil || !cfg.PeerStatsEnabled {
		return nil
	}
	n := 0
	for _, p := range cfg.Peers {
		if p != cfg.ID {
			n++
		}
	}
	if n == 0 {
		return []string{"no -peers: this agent probes nobody, so it will never measure a latency nor report a slow peer " +
			"(its data port still relays the probes of others); give it -peers H:P,... (the other agents), or -hadoop-jmx URL"}
	}
	var out []string
	if n < cfg.MinOutlierDetectionNodes {
		peers := "peers"
		if n == 1 {
			peers = "peer"
		}
		w := fmt.Sprintf("-peers names %d %s, but the outlier test needs %d (%s): this agent will never send "+
			"a slow-peer report nor its measurements, as Hadoop's DataNodes never do in so small a cluster; ",
			n, peers, cfg.MinOutlierDetectionNodes, datanode.MinOutlierDetectionNodesKey)
		switch {
		case n < 2:
			w += fmt.Sprintf("the fast path (its probe blocks on every heartbeat) needs %d peers, a cluster of %d DataNodes, "+
				"to tell a slow peer from a slow link or a slow agent: with %d nothing here can name a slow node", fastPathMinPeers,
				fastPathMinPeers+1, n)
		case n < fastPathMinPeers:
			w += fmt.Sprintf("with %d peers (a cluster of %d DataNodes) the fast path can still confirm a slow receiver, "+
				"but cannot tell a slow host, a slow sender or a slow link apart: that needs %d peers, %d DataNodes",
				n, n+1, fastPathMinPeers, fastPathMinPeers+1)
		default:
			w += fmt.Sprintf("the fast path (its probe blocks on every heartbeat, confirmed by the service's probe requests) "+
				"works from %d DataNodes, so the service can still find a slow node, sender or link; lower %s for Hadoop's test too",
				fastPathMinPeers+1, datanode.MinOutlierDetectionNodesKey)
		}
		out = append(out, w)
	}
	if c := cfg.Coverage(n); !c.Met(cfg.ProbeCoverage) {
		out = append(out, fmt.Sprintf("%d peers: at the probe bandwidth (%s, %s, %s) a round of one-packet probe blocks over "+
			"them takes %v, so a peer may go %v without one, more than %s %v; send more packets (within %s) or raise %s",
			n, datanode.ProbePacketsKey, datanode.ProbePacketBytesKey, datanode.ProbeIntervalKey, c.Round, 2*c.Round,
			datanode.ProbeCoverageKey, cfg.ProbeCoverage, datanode.ProbeMaxBytesPerSecondKey, datanode.ProbeCoverageKey))
	}
	return out
}
