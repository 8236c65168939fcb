package main

import (
	"fmt"

	"github.com/slowpeer/slowpeer/datanode"
)

// peerWarnings says why an agent that probes (no -hadoop-jmx) with cfg
// will never measure, or never report: without -peers it probes nobody;
// with fewer peers than dfs.datanode.min.outlier.detection.nodes its
// outlier test is always skipped for lack of data, and its first report
// (with the measurements the diagnosis uses) waits for data forever.
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
	switch {
	case n == 0:
		return []string{"no -peers: this agent probes nobody, so it will never measure a latency nor report a slow peer " +
			"(its data port still relays the probes of others); give it -peers H:P,... (the other agents), or -hadoop-jmx URL"}
	case n < cfg.MinOutlierDetectionNodes:
		peers := "peers"
		if n == 1 {
			peers = "peer"
		}
		return []string{fmt.Sprintf("-peers names %d %s, but the outlier test needs %d (%s): this agent will never send "+
			"a slow-peer report nor its measurements; give it more peers, or lower %s",
			n, peers, cfg.MinOutlierDetectionNodes, datanode.MinOutlierDetectionNodesKey, datanode.MinOutlierDetectionNodesKey)}
	}
	return nil
}
