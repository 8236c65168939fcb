package diagnosis

import (
	"cmp"
	"slices"
)

// Kind says what a Finding blames.
type Kind string

// The kinds of findings, as GET /v1/slownodes writes them.
const (
	// Inbound is a slow receiver: the peers that send to the node see it
	// slow, while what it measures of others is normal.
	Inbound Kind = "inbound"
	// Outbound is a slow sender: the node measures every peer slow,
	// while the others see it normal.
	Outbound Kind = "outbound"
	// Both is a slow host: slow as a receiver and as a sender.
	Both Kind = "both"
	// Link is one slow pair: the node and its peer are normal with the
	// others, but slow between them, in one direction or both.
	Link Kind = "link"
	// Rack is a rack whose judged nodes are (nearly) all slow, as nodes
	// or across the rack's edge: one finding for the rack instead of one
	// per node and one per link out of it.
	Rack Kind = "rack"
)

// Finding is one entry of the diagnosis, in the JSON shape of
// GET /v1/slownodes. It is a plain value, safe to copy.
type Finding struct {
	// Node is the slow node, "host:port". For a Link it is the sender of
	// the slower direction; for a Rack, the rack's slowest node.
	Node string `json:"node"`
	// Kind says what is slow.
	Kind Kind `json:"kind"`
	// Peer is, for a Link, the other end: the receiver of the slower
	// direction. Empty otherwise.
	Peer string `json:"peer,omitempty"`
	// Rack is, for a Rack, the rack's name as the topology gives it.
	// Empty otherwise.
	Rack string `json:"rack,omitempty"`
	// Reporters is the number of measured pairs the finding rests on:
	// for Inbound the senders that measured the node, for Outbound the
	// peers it measured, for Both the two added, for Link the directions
	// found slow (1 or 2), for Rack the pairs across the rack's edge (one
	// end inside, one outside).
	Reporters int `json:"reporters"`
	// LatencyMs is the slow latency: for a node, its typical latency in
	// the slow direction (the larger of the two for Both), as the fit
	// gives it; for a Link, the slower direction's measured latency; for
	// a Rack, the median over its slow nodes of their typical latency
	// (as a node, or across the rack's edge, whichever is larger).
	LatencyMs float64 `json:"latencyMs"`
	// MedianMs is the cluster median: the fit's latency of a typical
	// sender to a typical receiver (in another rack, with a topology).
	MedianMs float64 `json:"medianMs"`
}

// sortFindings orders findings from the slowest, then by node, kind and
// peer, so that the output is deterministic.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(b.LatencyMs, a.LatencyMs),
			cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Peer, b.Peer),
			cmp.Compare(a.Rack, b.Rack),
		)
	})
}
