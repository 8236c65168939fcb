package simulate

import (
	"encoding/json"

	"github.com/slowpeer/slowpeer/reports"
)

// Cost is what the fast path costs in a run's measured part, in the JSON
// shape of `slowpeer simulate -json` ("cost").
type Cost struct {
	// HeartbeatBytes are the JSON bodies of slowpeer's heartbeats (node,
	// recentLatencies, and the slow-peer report with its peerLatencies
	// when one is due), without and with a report.
	HeartbeatBytes struct {
		WithoutReport Bytes `json:"withoutReport"`
		WithReport    Bytes `json:"withReport"`
	} `json:"heartbeatBytes"`
	// ProbeBlocksPerAgentHour are the probe blocks an agent sends an hour,
	// its own and those the service asked for.
	ProbeBlocksPerAgentHour float64 `json:"probeBlocksPerAgentHour"`
	// RequestedBlocksPerAgentHour are those the service asked for.
	RequestedBlocksPerAgentHour float64 `json:"requestedBlocksPerAgentHour"`
	// RequestsIgnored counts the probe requests the agents ignored (a
	// node they do not know).
	RequestsIgnored int `json:"requestsIgnored"`
}

// Bytes are a median and a 99th percentile of sizes, in bytes.
type Bytes struct {
	P50 int `json:"p50"`
	P99 int `json:"p99"`
}

// costs counts the fast path's costs.
type costs struct {
	bodies    [2][]int64 // [without, with a report]: count by size in bytes
	own       int64      // the agents' own blocks in the measured part
	requested int64
	ignored   int
}

// heartbeat counts the body of a heartbeat of node carrying rs and r.
func (c *costs) heartbeat(measured bool, node string, r *report, rs []reports.RecentLatency) {
	if !measured {
		return
	}
	hb := reports.Heartbeat{Node: node, RecentLatencies: rs}
	k := 0
	if r != nil {
		hb.SlowPeers, hb.PeerLatencies, k = r.slowPeers, r.latencies, 1
		if hb.SlowPeers == nil {
			hb.SlowPeers = []reports.SlowPeer{}
		}
	}
	body, err := json.Marshal(hb)
	if err != nil {
		panic("BUG: simulate: heartbeat: " + err.Error())
	}
	if len(c.bodies[k]) <= len(body) {
		c.bodies[k] = append(c.bodies[k], make([]int64, len(body)+1-len(c.bodies[k]))...)
	}
	c.bodies[k][len(body)]++
}

// cost returns the figures for agents × hours of measured part.
func (c *costs) cost(agentHours float64) *Cost {
	out := &Cost{RequestsIgnored: c.ignored}
	out.HeartbeatBytes.WithoutReport = sizes(c.bodies[0])
	out.HeartbeatBytes.WithReport = sizes(c.bodies[1])
	if agentHours > 0 {
		out.ProbeBlocksPerAgentHour = float64(c.own+c.requested) / agentHours
		out.RequestedBlocksPerAgentHour = float64(c.requested) / agentHours
	}
	return out
}

// sizes returns the nearest-rank median and 99th percentile of a count
// by size.
func sizes(count []int64) Bytes {
	var n int64
	for _, k := range count {
		n += k
	}
	at := func(q float64) int {
		rank := int64(q*float64(n) + 0.999999)
		var seen int64
		for size, k := range count {
			if seen += k; seen >= max(rank, 1) {
				return size
			}
		}
		return 0
	}
	if n == 0 {
		return Bytes{}
	}
	return Bytes{P50: at(0.5), P99: at(0.99)}
}
