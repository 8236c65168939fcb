package tracker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Disks aggregates what the DataNodes say of their volumes: the slow-disk
// reports of their heartbeats, as Hadoop's SlowDiskTracker does, and the
// latencies they measured of every volume (diskLatencies), which the
// service's fleet view compares across nodes.
//
// A node's slow-disk report is valid at now while now − arrival <
// validity, strictly; the validity is 3 × dfs.datanode.outliers.report.interval
// (SlowDiskTracker.reportValidityMs). So are its measured latencies.
// Departing from Hadoop, as the Tracker does for peers, a node's report
// replaces everything it reported before (Hadoop replaces the entry of
// each disk it names and leaves the others until they expire), and Top
// breaks ties deterministically. Hadoop also regenerates its report at
// most once per report interval, off the heartbeat thread; here reads
// compute it, and never return an expired entry.
//
// Safe for concurrent use. It never reads the clock. Construct with
// NewDisks; the zero value is not usable. It takes ownership of the
// slices and maps passed to Report: callers must not change them after.
type Disks struct {
	validity time.Duration
	// maxEntries bounds the volumes held, slow and measured; 0: no bound.
	maxEntries int

	mu      sync.Mutex
	nodes   map[string]*diskNode
	entries int // volumes held: len(slow) + len(measured) over nodes
}

// diskNode is what Disks holds of one DataNode.
type diskNode struct {
	slowAt     time.Time
	slow       []reports.SlowDisk // sorted by Disk; nil: none held
	measuredAt time.Time
	measured   []reports.DiskLatency // nil: none held
}

// LimitDiskEntries is the limit a LimitError of Disks names.
const LimitDiskEntries = "disk entries"

// NewDisks returns an empty Disks in which reports stay valid for
// validity, holding at most maxEntries volumes (slow-disk entries and
// measured volumes together; 0: no bound). It panics if validity is not
// positive or maxEntries negative.
func NewDisks(validity time.Duration, maxEntries int) *Disks {
	if validity <= 0 || maxEntries < 0 {
		panic(fmt.Sprintf("BUG: tracker.NewDisks: validity %v, max entries %d", validity, maxEntries))
	}
	return &Disks{validity: validity, maxEntries: maxEntries, nodes: make(map[string]*diskNode)}
}

// Report applies what one heartbeat of node, received at now, says of its
// volumes: slow, when not nil, replaces node's slow-disk report (an empty
// one clears it), and measured, when not nil, replaces its measured
// latencies. Both are expected to have passed the heartbeat's validation
// (a volume named once each). A report that would take Disks past its
// bound is refused whole with a *LimitError, and what node reported
// before stands.
//
// Reference: SlowDiskTracker.addSlowDiskReport.
func (d *Disks) Report(now time.Time, node string, slow []reports.SlowDisk, measured []reports.DiskLatency) error {
	if slow == nil && measured == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.nodes[node]
	next, err := d.admitLocked(n, slow, measured)
	if err != nil {
		return err
	}
	if n == nil {
		n = &diskNode{}
	}
	if slow != nil {
		n.slowAt, n.slow = now, slices.SortedFunc(slices.Values(slow), func(a, b reports.SlowDisk) int { return strings.Compare(a.Disk, b.Disk) })
	}
	if measured != nil {
		n.measuredAt, n.measured = now, measured
	}
	d.entries = next
	if len(n.slow) == 0 && len(n.measured) == 0 {
		delete(d.nodes, node)
		return nil
	}
	d.nodes[node] = n
	return nil
}

// Admits returns the *LimitError with which Report would refuse the same
// arguments now, or nil.
func (d *Disks) Admits(node string, slow []reports.SlowDisk, measured []reports.DiskLatency) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.admitLocked(d.nodes[node], slow, measured)
	return err
}

// admitLocked returns the entries held once slow and measured replace
// what n (nil: nothing) holds, or a *LimitError when that passes the
// bound and grows. The caller holds d.mu.
func (d *Disks) admitLocked(n *diskNode, slow []reports.SlowDisk, measured []reports.DiskLatency) (int, error) {
	next := d.entries
	if slow != nil {
		next += len(slow)
		if n != nil {
			next -= len(n.slow)
		}
	}
	if measured != nil {
		next += len(measured)
		if n != nil {
			next -= len(n.measured)
		}
	}
	if d.maxEntries > 0 && next > d.maxEntries && next > d.entries {
		return 0, &LimitError{Limit: LimitDiskEntries, Max: d.maxEntries}
	}
	return next, nil
}

// valid reports whether something that arrived at at is valid at now.
//
// Reference: SlowDiskTracker.getSlowDisks (now - timestamp < reportValidityMs).
func (d *Disks) valid(now, at time.Time) bool { return now.Sub(at) < d.validity }

// Top returns up to n slow disks with a valid report at now, highest
// latency first (the highest over the disk's operations), ties by
// SlowDiskID: the entries of Hadoop's SlowDisksReport. n <= 0 returns an
// empty non-nil slice. The latency maps are shared with Disks and must
// not be changed.
//
// Reference: SlowDiskTracker.getSlowDisks, which keeps the top
// dfs.datanode.max.disks.to.report in a PriorityQueue and emits heap
// order.
func (d *Disks) Top(now time.Time, n int) []reports.ReportedDisk {
	if n <= 0 {
		return []reports.ReportedDisk{}
	}
	out := d.Slow(now)
	slices.SortStableFunc(out, func(a, b reports.ReportedDisk) int {
		return cmp.Compare(b.MaxLatencyMs(), a.MaxLatencyMs())
	})
	return out[:min(n, len(out))]
}

// Slow returns every slow disk with a valid report at now, sorted by
// SlowDiskID. The latency maps are shared with Disks and must not be
// changed.
func (d *Disks) Slow(now time.Time) []reports.ReportedDisk {
	d.mu.Lock()
	out := make([]reports.ReportedDisk, 0, 16)
	for name, n := range d.nodes {
		if !d.valid(now, n.slowAt) {
			continue
		}
		for _, s := range n.slow {
			out = append(out, reports.ReportedDisk{ID: reports.SlowDiskID(name, s.Disk), Latencies: s.Latencies})
		}
	}
	d.mu.Unlock()
	slices.SortFunc(out, func(a, b reports.ReportedDisk) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// NodeDisks is what one node measured of its volumes, and when it arrived.
type NodeDisks struct {
	// Node is the node's id, "host:port".
	Node string
	// At is when the measurement arrived.
	At time.Time
	// Disks is every volume's entry, as the node sent them. Shared with
	// Disks: not to be changed.
	Disks []reports.DiskLatency
}

// Measured returns the valid measurements of every node at now, sorted by
// node.
func (d *Disks) Measured(now time.Time) []NodeDisks {
	d.mu.Lock()
	out := make([]NodeDisks, 0, len(d.nodes))
	for name, n := range d.nodes {
		if n.measured != nil && d.valid(now, n.measuredAt) {
			out = append(out, NodeDisks{Node: name, At: n.measuredAt, Disks: n.measured})
		}
	}
	d.mu.Unlock()
	slices.SortFunc(out, func(a, b NodeDisks) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// Expire deletes what is not valid at now and returns the number of
// volume entries deleted. Hadoop's SlowDiskTracker drops stale entries
// too, when it regenerates its report (cleanUpOldReports).
func (d *Disks) Expire(now time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	deleted := 0
	for name, n := range d.nodes {
		if n.slow != nil && !d.valid(now, n.slowAt) {
			deleted += len(n.slow)
			n.slow = nil
		}
		if n.measured != nil && !d.valid(now, n.measuredAt) {
			deleted += len(n.measured)
			n.measured = nil
		}
		if n.slow == nil && n.measured == nil {
			delete(d.nodes, name)
		}
	}
	d.entries -= deleted
	return deleted
}

// Entries returns the volume entries held, slow and measured, valid or
// not yet expired: what the bound of NewDisks counts.
func (d *Disks) Entries() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.entries
}
