package disk

import (
	"slices"

	"github.com/slowpeer/slowpeer/reports"
)

// NodeDisks is what one node measured of its volumes: a heartbeat's
// diskLatencies.
type NodeDisks struct {
	// Node is the node's id, "host:port".
	Node string
	// Disks is its volumes' entries.
	Disks []reports.DiskLatency
}

// Evidence is what a Finding rests on.
type Evidence string

// The kinds of evidence.
const (
	// Latency: the volume's latency of an operation is far above that of
	// like volumes that are not busy, and its own device is not busy.
	Latency Evidence = "latency"
	// Service: the volume's device spends far more time per operation,
	// and per byte, than like devices: slow at whatever load.
	Service Evidence = "service"
)

// Finding is a volume the fleet view finds slow, and why.
type Finding struct {
	// Node is the volume's node, "host:port".
	Node string
	// Disk is the volume's name.
	Disk string
	// Kind is its device kind.
	Kind string
	// Evidence says what was compared.
	Evidence Evidence
	// Op is the operation of Latency evidence, "" for Service.
	Op string
	// ValueMs is the volume's figure: its latency of Op, or its device's
	// time per operation (busy time / operations).
	ValueMs float64
	// MedianMs is the median of the figure over the like volumes.
	MedianMs float64
	// UpperLimitMs is the limit ValueMs exceeded.
	UpperLimitMs float64
}

// ID returns the finding's disk id, "node:disk" (reports.SlowDiskID).
func (f Finding) ID() string { return reports.SlowDiskID(f.Node, f.Disk) }

// SlowIDs returns, sorted, the disk ids a service's slow set of disks
// is fed with: those of findings, and those of the slow-disk reports
// (Hadoop's, the nodes' own test) of nodes that measure no volume
// (measures reports false), such as an agent reading a Hadoop DataNode,
// whose report is then all there is to go on.
func SlowIDs(findings []Finding, reported []reports.ReportedDisk, measures func(node string) bool) []string {
	ids := make([]string, 0, len(findings))
	for _, f := range findings {
		ids = append(ids, f.ID())
	}
	for _, r := range reported {
		if node, _ := reports.SplitDiskID(r.ID); !measures(node) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
