package namenode

import (
	"fmt"
	"strings"

	"github.com/slowpeer/slowpeer/suspect"
)

// The bytes each admitted thing costs the service's heap at most, as
// BenchmarkEveryLimitFull measures them with ids of 21 bytes (a longer id
// costs its extra bytes once more in each place it is held). They are
// upper bounds with room, not averages.
const (
	// dataNodeBytes: a row of the DataNode table (its map entry, row,
	// id and the sorted ids), and the node's place in the slow sets and
	// decisions when it is reported.
	dataNodeBytes = 256
	// trackerEntryBytes: a (slow node, reporter) entry of the tracker
	// with its report.
	trackerEntryBytes = 72
	// slowNodeBytes: a slow node of the tracker beyond its entries (its
	// map entries and index).
	slowNodeBytes = 256
	// cellBytes: a cell of the diagnosis matrix (24 bytes) with the
	// interned id of a peer that nobody else names, the worst case.
	cellBytes = 128
	// pendingCellBytes: a peerLatencies entry of a row waiting for the
	// next diagnosis, as the heartbeat's parser made it.
	pendingCellBytes = 72
	// fitCellBytes: the diagnosis's buffers (the fit, its cells and
	// findings), per cell.
	fitCellBytes = 96
	// jmxNodeBytes: /jmx's LiveNodes, per DataNode, while it is written
	// (built whole, as Hadoop's JMX servlet does; a heavy route, one at
	// a time on two cores).
	jmxNodeBytes = 1600
	// answerBytes bounds the heap a streamed answer (/v1/state,
	// /v1/datanodes, /slowpeers) or the state file holds while it is
	// written: a page of statePage entries (statestream.go).
	answerBytes = 4 << 20
	// answersAtOnce is how many streamed answers the budget counts as
	// written at the same time.
	answersAtOnce = 2
	// runtimeBytes is the Go runtime, the binary's own data and the
	// libraries' (gin, the SQL store's caches), before anything is
	// admitted.
	runtimeBytes = 24 << 20
)

// Budget is the memory the service may use with every limit of a Config
// full at once, by part (MemoryBudget).
type Budget struct {
	// Parts are the bytes of each part of the heap, by name, in the
	// order docs/operations.md ("Memory: what the limits cost") lists them.
	Parts []BudgetPart
}

// BudgetPart is one part of a Budget.
type BudgetPart struct {
	Name  string
	Bytes int64
}

// Heap returns the live heap of the budget: the sum of its parts.
func (b Budget) Heap() int64 {
	var n int64
	for _, p := range b.Parts {
		n += p.Bytes
	}
	return n
}

// Total returns the resident memory the budget allows: the live heap, a
// quarter as much again for garbage between two collections, and the
// runtime.
// The service makes it its soft memory limit (cmd/slowpeer): without one,
// the garbage collector lets the heap grow to twice what is live
// (GOGC=100) before it collects.
func (b Budget) Total() int64 { return b.Heap() + b.Heap()/4 + runtimeBytes }

// String writes the budget as "part N MiB, ..., total N MiB".
func (b Budget) String() string {
	var sb strings.Builder
	for _, p := range b.Parts {
		fmt.Fprintf(&sb, "%s %.1f MiB, ", p.Name, float64(p.Bytes)/(1<<20))
	}
	fmt.Fprintf(&sb, "heap %.1f MiB, resident at most %.1f MiB", float64(b.Heap())/(1<<20), float64(b.Total())/(1<<20))
	return sb.String()
}

// MemoryBudget returns the memory the service holds, at most, with every
// limit of cfg full at once, by part: whatever its clients send, with or
// without a token, it holds no more (docs/operations.md, "Limits and memory"). Connections are
// not in it: each costs about 30 KB while open, up to
// slowpeer.namenode.max.connections of them.
func MemoryBudget(cfg Config) Budget {
	cells := int64(cfg.MaxDiagnosisReporters) * int64(cfg.MaxPeerLatencies)
	return Budget{Parts: []BudgetPart{
		{"datanodes", int64(cfg.MaxDataNodes) * dataNodeBytes},
		{"tracker entries", int64(cfg.MaxTrackerEntries) * trackerEntryBytes},
		{"slow nodes", int64(cfg.MaxSlowNodes) * slowNodeBytes},
		{"peerLatencies cells", cells * cellBytes},
		{"pending rows", cells * pendingCellBytes},
		{"diagnosis", cells * fitCellBytes},
		{"fast path", fastPathBytes(cfg)},
		{"/jmx", int64(cfg.MaxDataNodes) * jmxNodeBytes},
		{"streamed answers and state file", answersAtOnce * answerBytes},
	}}
}

// fastPathBytes is the most the fast path's model holds (suspects.go):
// pairs of DataNodes of the table only, at most MaxPeerLatencies of each
// reporter, and the evidence waiting for its next step; none when it is
// off.
func fastPathBytes(cfg Config) int64 {
	if !cfg.SuspectEnabled {
		return 0
	}
	nodes := int64(cfg.MaxDataNodes)
	return nodes*suspect.NodeBytes + nodes*int64(cfg.MaxPeerLatencies)*suspect.PairBytes + suspect.PendingBytes
}
