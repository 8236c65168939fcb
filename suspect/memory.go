package suspect

import "github.com/slowpeer/slowpeer/reports"

// The heap the model holds, at most, as TestModelBytes measures it with
// ids of 21 bytes ("dn-12345.example:9866"; a longer id costs its extra
// bytes once, in its node): upper bounds with room, not averages, for the
// service's memory budget (namenode.MemoryBudget). The model holds at
// most Config.MaxPeers pairs of each reporter, and its nodes are those
// the pairs name and the reporters.
const (
	// PairBytes is a pair of the model: its latest latency in the
	// arena (32 bytes) and its index in the reporter's out and the
	// peer's in, with the room the slices keep as they grow (42–52 bytes
	// measured at 16 to 64 pairs a reporter, replaced four times over).
	PairBytes = 64
	// NodeBytes is a node of the model beyond its pairs: its member, its
	// id, and its entries in the model's map, order and ids (under 450
	// bytes measured).
	NodeBytes = 512
	// PendingBytes is the evidence waiting for the next Step, at most
	// MaxPending recent latencies (and a heartbeat's more) as the
	// heartbeat's parser made them: each with its id, and its share of
	// its heartbeat's slice and observation.
	PendingBytes = (MaxPending + reports.MaxRecentLatencies) * pendingLatencyBytes
	// pendingLatencyBytes is one recent latency of PendingBytes, at most.
	pendingLatencyBytes = 256
)
