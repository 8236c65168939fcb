package reports

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
)

// HeartbeatPath is the path of the NameNode-side service to which an agent
// POSTs its heartbeats (DESIGN.md, "NameNode-side HTTP API").
const HeartbeatPath = "/v1/heartbeat"

// MaxSlowPeers is the largest number of slow peers one heartbeat may carry.
// A DataNode reports at most its downstream peers, and no HDFS cluster gives
// one DataNode 10 000 of them, so more is taken as a broken or hostile sender.
const MaxSlowPeers = 10000

// Heartbeat is the body of a POST to HeartbeatPath. ParseHeartbeat reads
// it strictly.
//
// SlowPeers tells apart "no report" from "an empty report", as HDFS's
// heartbeat does (BPServiceActor.sendHeartBeat sends a SlowPeerReports only
// when one is due): a nil SlowPeers means the field was absent and earlier
// reports of Node stand; a non-nil SlowPeers, even empty, replaces them.
type Heartbeat struct {
	// Node is the sender's id, "host:port" of its data transfer address.
	Node string `json:"node"`
	// SlowPeers is the sender's slow-peer report, or nil when it sends none.
	SlowPeers []SlowPeer `json:"slowPeers,omitzero"`
	// HTTPAddress is the "host:port" of the sender's own HTTP port (its
	// /jmx, /metrics), or "" when it serves none. The service lists it as
	// the node's infoAddr in NameNodeInfo's LiveNodes, as a Hadoop
	// NameNode lists a DataNode's info port, so tools that find DataNodes
	// through the NameNode find the agents.
	HTTPAddress string `json:"httpAddress,omitempty"`
	// PeerLatencies is what the sender measured of every peer, sent once
	// per report interval, or nil when absent (peerlatency.go).
	PeerLatencies []PeerLatency `json:"peerLatencies,omitzero"`
	// SlowDisks is the sender's slow-disk report (Hadoop's
	// SlowDiskReports), or nil when it sends none; present, even empty,
	// it replaces the sender's earlier one (disk.go).
	SlowDisks []SlowDisk `json:"slowDisks,omitzero"`
	// DiskLatencies is what the sender measured of every volume, sent
	// with its reports, or nil when absent (disk.go).
	DiskLatencies []DiskLatency `json:"diskLatencies,omitzero"`
	// RecentLatencies is what the sender measured of its peers since its
	// previous heartbeat, or nil when it measured nothing (recent.go).
	RecentLatencies []RecentLatency `json:"recentLatencies,omitzero"`
}

// HasReport reports whether the heartbeat carries a slow-peer report.
func (h Heartbeat) HasReport() bool { return h.SlowPeers != nil }

// SlowPeer is one downstream peer that a DataNode found slow: its average
// latency and the statistics of the outlier test that flagged it, all in
// milliseconds.
type SlowPeer struct {
	// Node is the slow peer's id, "host:port".
	Node string `json:"node"`
	// LatencyMs is the peer's average packet-mirroring latency.
	LatencyMs float64 `json:"latencyMs"`
	// MedianMs is the median latency over all peers of the reporter.
	MedianMs float64 `json:"medianMs"`
	// MADMs is the scaled median absolute deviation (× 1.4826).
	MADMs float64 `json:"madMs"`
	// UpperLimitMs is the limit LatencyMs exceeded.
	UpperLimitMs float64 `json:"upperLimitMs"`
}

// Validate checks what JSON decoding cannot: a well-formed node id for the
// sender and every peer, a well-formed httpAddress when there is one,
// finite non-negative latencies, at most MaxSlowPeers peers, no peer named
// twice, and the same of the disks (disk.go). It returns the first
// problem found.
func (h Heartbeat) Validate() error {
	if err := ValidateNode(h.Node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if h.HTTPAddress != "" {
		if err := ValidateNode(h.HTTPAddress); err != nil {
			return fmt.Errorf("httpAddress: %w", err)
		}
	}
	if len(h.SlowPeers) > MaxSlowPeers {
		return fmt.Errorf("slowPeers: %d entries, at most %d allowed", len(h.SlowPeers), MaxSlowPeers)
	}
	seen := make(map[string]struct{}, len(h.SlowPeers))
	for i, p := range h.SlowPeers {
		if err := p.validate(); err != nil {
			return fmt.Errorf("slowPeers[%d]: %w", i, err)
		}
		if _, dup := seen[p.Node]; dup {
			return fmt.Errorf("slowPeers[%d]: node %q named twice", i, Clip(p.Node))
		}
		seen[p.Node] = struct{}{}
	}
	if err := validatePeerLatencies(h.PeerLatencies); err != nil {
		return err
	}
	if err := validateRecent(h.RecentLatencies); err != nil {
		return err
	}
	return validateDisks(h.SlowDisks, h.DiskLatencies)
}

func (p SlowPeer) validate() error {
	if err := ValidateNode(p.Node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"latencyMs", p.LatencyMs}, {"medianMs", p.MedianMs}, {"madMs", p.MADMs}, {"upperLimitMs", p.UpperLimitMs}} {
		if err := ValidateLatency(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}

// ValidateLatency reports an error unless ms is a finite number ≥ 0.
func ValidateLatency(ms float64) error {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return errors.New("not a finite number")
	}
	if ms < 0 {
		return fmt.Errorf("negative latency %v", ms)
	}
	return nil
}

// ValidateNode reports an error unless id is "host:port" with a non-empty
// host of at most 255 bytes and a port in 1..65535. IPv6 hosts are written
// in brackets, "[::1]:9866", as net.JoinHostPort writes them.
func ValidateNode(id string) error {
	if id == "" {
		return errors.New("missing node id")
	}
	host, port, err := net.SplitHostPort(id)
	if err != nil {
		return fmt.Errorf("node id %q is not host:port", Clip(id))
	}
	if host == "" || len(host) > 255 {
		return fmt.Errorf("node id %q has a bad host", Clip(id))
	}
	for _, c := range host {
		if c <= ' ' || c == 0x7f || c == '/' || c == '"' || c == '\\' {
			return fmt.Errorf("node id %q has a bad host", Clip(id))
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 || port[0] == '0' {
		return fmt.Errorf("node id %q has a bad port", Clip(id))
	}
	return nil
}

// Host returns the host part of a node id that passed ValidateNode.
func Host(id string) string {
	host, _, err := net.SplitHostPort(id)
	if err != nil {
		return id
	}
	return host
}
