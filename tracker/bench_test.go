package tracker

import (
	"container/heap"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The benchmarks run at the size the issue sets: 10 000 slow nodes, each
// reported by 20 of the 10 000 nodes, 200 000 (slow node, reporter) entries.
// Hadoop's SlowPeerTracker at that size: about 48 ms a top-5 read, 90–230 ns
// an addReport, 280 bytes an entry. Targets: under 1 ms, 150 ns, 128 bytes.
const (
	benchNodes     = 10000
	benchReporters = 20 // per slow node, and slow peers per report
	benchEntries   = benchNodes * benchReporters
)

// benchName is node i's id, as a DataNode's transfer address.
func benchName(i int) string {
	i %= benchNodes
	return fmt.Sprintf("10.%d.%d.%d:9866", i>>16, (i>>8)&0xff, i&0xff)
}

// benchReports returns, per reporter, the report it sends: 20 slow peers
// spread over the cluster, so that every node is reported by 20 others.
// shift moves every reporter to another set of peers.
func benchReports(shift int) [][]reports.SlowPeer {
	all := make([][]reports.SlowPeer, benchNodes)
	for r := range all {
		peers := make([]reports.SlowPeer, benchReporters)
		for j := range peers {
			peers[j] = reports.SlowPeer{
				Node:         benchName(r + 1 + shift + j*487),
				LatencyMs:    10 + float64((r*31+j*17)%997)/10,
				MedianMs:     2.1,
				MADMs:        0.74,
				UpperLimitMs: 6.3,
			}
		}
		all[r] = peers
	}
	return all
}

// benchTracker returns a Tracker holding benchEntries entries, reported at
// trackerT0 + 0..9.999 s, and the reports' names.
func benchTracker(b *testing.B) (*Tracker, []string) {
	b.Helper()
	tr := New(trackerValidity)
	names := make([]string, benchNodes)
	for i := range names {
		names[i] = benchName(i)
	}
	for r, peers := range benchReports(0) {
		tr.Report(trackerAt(time.Duration(r)*time.Millisecond), names[r], peers)
	}
	if n := tr.Entries(); n != benchEntries {
		b.Fatalf("built %d entries, want %d", n, benchEntries)
	}
	return tr, names
}

// hadoopTracker is Hadoop's SlowPeerTracker (trunk, with latencies) redone
// in Go as a baseline for the same run: a map of slow node -> reporting node
// -> (report, time); addReport puts one entry; jsonReports refilters every
// entry into a sorted set per slow node and keeps the top n by reporter
// count in a priority queue, as getJsonReports does.
type hadoopTracker struct {
	validity time.Duration
	mu       sync.Mutex
	all      map[string]map[string]hadoopEntry
}

type hadoopEntry struct {
	at   time.Time
	peer reports.SlowPeer
}

func (h *hadoopTracker) addReport(now time.Time, reporter string, p reports.SlowPeer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.all[p.Node]
	if m == nil {
		m = map[string]hadoopEntry{}
		h.all[p.Node] = m
	}
	m[reporter] = hadoopEntry{at: now, peer: p}
}

func (h *hadoopTracker) jsonReports(now time.Time, n int) []reports.SlowNode {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := &byReporters{}
	for slow, m := range h.all {
		var rs []reports.Reporter
		for reporter, e := range m {
			if now.Sub(e.at) < h.validity {
				rs = append(rs, reports.Reporter{Node: reporter, LatencyMs: e.peer.LatencyMs,
					MedianMs: e.peer.MedianMs, MADMs: e.peer.MADMs, UpperLimitMs: e.peer.UpperLimitMs})
			}
		}
		if len(rs) == 0 {
			continue
		}
		slices.SortFunc(rs, func(a, b reports.Reporter) int { return strings.Compare(a.Node, b.Node) })
		switch {
		case q.Len() < n:
			heap.Push(q, reports.SlowNode{Node: slow, Reporters: rs})
		case len((*q)[0].Reporters) < len(rs):
			heap.Pop(q)
			heap.Push(q, reports.SlowNode{Node: slow, Reporters: rs})
		}
	}
	return *q
}

// byReporters is a min-heap of slow nodes by number of reporters.
type byReporters []reports.SlowNode

func (q byReporters) Len() int           { return len(q) }
func (q byReporters) Less(i, j int) bool { return len(q[i].Reporters) < len(q[j].Reporters) }
func (q byReporters) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *byReporters) Push(x any)        { *q = append(*q, x.(reports.SlowNode)) }
func (q *byReporters) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// benchHadoop returns a hadoopTracker holding the same entries as
// benchTracker's.
func benchHadoop() (*hadoopTracker, []string) {
	h := &hadoopTracker{validity: trackerValidity, all: map[string]map[string]hadoopEntry{}}
	names := make([]string, benchNodes)
	for i := range names {
		names[i] = benchName(i)
	}
	for r, peers := range benchReports(0) {
		for _, p := range peers {
			h.addReport(trackerAt(time.Duration(r)*time.Millisecond), names[r], p)
		}
	}
	return h, names
}

// BenchmarkTrackerTop measures a top-5 read, as /slowpeers and /jmx make.
// valid: every report valid and read before. reported: 100 heartbeats with
// reports (2 000 entries, touching ~2 000 slow nodes) arrived since the last
// read; only the read is timed. expiring: the worst case, every slow node
// has reports that expired or came back to life since the last read (Expire
// has not run), so every read refilters all 200 000 entries. hadoop: the
// hadoopTracker baseline, which refilters everything on every read.
func BenchmarkTrackerTop(b *testing.B) {
	now := trackerAt(time.Hour)
	b.Run("hadoop", func(b *testing.B) {
		h, _ := benchHadoop()
		b.ReportAllocs()
		for b.Loop() {
			h.jsonReports(now, 5)
		}
	})
	b.Run("valid", func(b *testing.B) {
		tr, _ := benchTracker(b)
		tr.Top(now, 5)
		b.ReportAllocs()
		for b.Loop() {
			tr.Top(now, 5)
		}
	})
	b.Run("reported", func(b *testing.B) {
		tr, names := benchTracker(b)
		next := benchReports(7)
		tr.Top(now, 5)
		b.ReportAllocs()
		r := 0
		for b.Loop() {
			b.StopTimer()
			for range 100 {
				tr.Report(now, names[r], next[r])
				r = (r + 1) % benchNodes
			}
			b.StartTimer()
			tr.Top(now, 5)
		}
	})
	b.Run("expiring", func(b *testing.B) {
		tr, _ := benchTracker(b)
		// Reports arrived at trackerT0 + 0..10 s. Reads alternate between
		// trackerT0 + validity + 3 s and + 7 s, at which 30 % and 70 % of them have
		// expired, so that nearly every slow node changes between reads.
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			tr.Top(trackerAt(trackerValidity+time.Duration(3+4*(i%2))*time.Second), 5)
			i++
		}
	})
}

// BenchmarkTrackerReport measures heartbeats with reports of 20 slow peers
// replacing the sender's earlier report of 20, in a full Tracker; ns/entry
// is the cost of one (slow node, reporter) entry. same: the reporter names
// the same peers again. moved: it names 20 other peers. hadoop: the
// hadoopTracker baseline, one addReport per entry (adding, not replacing).
func BenchmarkTrackerReport(b *testing.B) {
	b.Run("hadoop", func(b *testing.B) {
		h, names := benchHadoop()
		rs := benchReports(0)
		now := trackerAt(time.Hour)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r := i % benchNodes
			for _, p := range rs[r] {
				h.addReport(now, names[r], p)
			}
			i++
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchReporters), "ns/entry")
	})
	f := func(name string, shifts ...int) {
		b.Run(name, func(b *testing.B) {
			tr, names := benchTracker(b)
			sets := make([][][]reports.SlowPeer, len(shifts))
			for i, s := range shifts {
				sets[i] = benchReports(s)
			}
			now := trackerAt(time.Hour)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := i % benchNodes
				tr.Report(now, names[r], sets[(i/benchNodes)%len(sets)][r])
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchReporters), "ns/entry")
		})
	}
	f("same", 0)
	f("moved", 1, 0)
}

// BenchmarkTrackerMemory measures the heap a full Tracker holds, interned
// names included, per (slow node, reporter) entry; hadoop: the same for the
// hadoopTracker baseline (whose names are shared with the input).
func BenchmarkTrackerMemory(b *testing.B) {
	names := make([]string, benchNodes)
	for i := range names {
		names[i] = benchName(i)
	}
	rs := benchReports(0)
	f := func(name string, build func() any) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var perEntry float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				held := build()
				runtime.GC()
				runtime.ReadMemStats(&after)
				perEntry = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / benchEntries
				runtime.KeepAlive(held)
			}
			b.ReportMetric(perEntry, "B/entry")
		})
	}
	f("tracker", func() any {
		tr := New(trackerValidity)
		for r, peers := range rs {
			tr.Report(trackerT0, names[r], peers)
		}
		if tr.Entries() != benchEntries {
			b.Fatalf("built %d entries, want %d", tr.Entries(), benchEntries)
		}
		return tr
	})
	f("hadoop", func() any {
		h := &hadoopTracker{validity: trackerValidity, all: map[string]map[string]hadoopEntry{}}
		for r, peers := range rs {
			for _, p := range peers {
				h.addReport(trackerT0, names[r], p)
			}
		}
		return h
	})
}

// BenchmarkTrackerExpire measures the periodic Expire over a full Tracker
// when nothing has expired: its cost when there is nothing to do.
func BenchmarkTrackerExpire(b *testing.B) {
	tr, _ := benchTracker(b)
	now := trackerAt(time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		if n := tr.Expire(now); n != 0 {
			b.Fatalf("Expire deleted %d entries, want none", n)
		}
	}
}

// BenchmarkTrackerIsSlow measures the check every heartbeat answer makes.
func BenchmarkTrackerIsSlow(b *testing.B) {
	tr, names := benchTracker(b)
	now := trackerAt(time.Hour)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tr.IsSlow(now, names[i%benchNodes])
		i++
	}
}

// BenchmarkDisksReport times one heartbeat's disks into Disks: a node's
// report of 12 measured volumes (and an empty slow-disk report), among
// 10 000 nodes.
func BenchmarkDisksReport(b *testing.B) {
	d := NewDisks(15*time.Minute, 0)
	now := time.Unix(1_700_000_000, 0)
	measured := make([]reports.DiskLatency, 12)
	for v := range measured {
		measured[v] = reports.DiskLatency{Disk: fmt.Sprintf("/data/%d", v), Latencies: map[string]float64{"READ": 6}, Samples: map[string]int64{"READ": 600}}
	}
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("10.0.%d.%d:9866", i/256, i%256)
		if err := d.Report(now, names[i], []reports.SlowDisk{}, measured); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := d.Report(now, names[i%len(names)], []reports.SlowDisk{}, measured); err != nil {
			b.Fatal(err)
		}
	}
}
