package suspect

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// filled returns the live heap of a Detector that has seen n reporters
// (ids of 21 bytes), each with a pair to each of the next k of them, as
// heartbeats bring them (every id a string of its own), once applied and
// stepped; churn times, each time k peers further (each pair replacing
// one of the time before, as with more peers than MaxPeers = k).
func filled(t *testing.T, n, k, churn int) uint64 {
	t.Helper()
	ids := func(i int) string { return fmt.Sprintf("dn-%05d.example:9866", i%n) }
	before := heapObjects()
	cfg := DefaultConfig()
	cfg.MaxPeers = k
	d := New(cfg)
	now := time.Unix(1_700_000_000, 0)
	for c := range churn {
		now = now.Add(time.Second)
		for i := range n {
			rs := make([]reports.RecentLatency, k)
			for j := range rs {
				rs[j] = reports.RecentLatency{Node: ids(i + 1 + c*k + j), LatencyMs: 1 + float64(j%7)/10, Blocks: 1}
			}
			d.Observe(now, ids(i), rs)
		}
		d.Step(now, all)
	}
	if pairs, _ := d.Pairs(); pairs != n*k {
		t.Fatalf("%d pairs, want %d", pairs, n*k)
	}
	after := heapObjects()
	runtime.KeepAlive(d)
	return after - before
}

func heapObjects() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The model's bytes per pair and per node, measured by filling it, are
// within PairBytes and NodeBytes, the figures of the service's memory
// budget, at every number of pairs per reporter up to the default
// MaxPeers (maps grow by doubling: a reporter's maps are emptiest, per
// pair, just past a doubling), once filled and after their pairs were
// replaced three times over (what the maps keep then stays the same
// after 16 times).
func TestModelBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills detectors of tens of thousands of pairs, seven times")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 1000
	node := float64(filled(t, n, 1, 1)) / n // and its one pair
	t.Logf("a node and one pair: %.0f bytes", node)
	if node > NodeBytes+PairBytes {
		t.Errorf("a node and one pair take %.0f bytes, more than NodeBytes + PairBytes = %d", node, NodeBytes+PairBytes)
	}
	for _, k := range []int{16, 57, DefaultMaxPeers} {
		for _, churn := range []int{1, 4} {
			total := float64(filled(t, n, k, churn))
			pair := (total - n*node) / (n * float64(k-1))
			t.Logf("%d pairs a reporter, %d times: %.0f bytes a node, %.1f bytes a pair beyond its first", k, churn, total/n, pair)
			if pair > PairBytes {
				t.Errorf("%d pairs a reporter, %d times: %.1f bytes a pair, more than PairBytes = %d", k, churn, pair, PairBytes)
			}
		}
	}
}

// The evidence waiting for a Step takes at most pendingLatencyBytes a
// recent latency, in heartbeats of one (the most a latency) to
// MaxRecentLatencies.
func TestPendingBytes(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, k := range []int{1, 3, reports.MaxRecentLatencies} {
		n := MaxPending/k - 1
		before := heapObjects()
		d := New(DefaultConfig())
		for i := range n {
			rs := make([]reports.RecentLatency, k)
			for j := range rs {
				rs[j] = reports.RecentLatency{Node: fmt.Sprintf("dn-%05d.example:9866", j), LatencyMs: 1, Blocks: 1}
			}
			d.Observe(time.Unix(1000, 0), fmt.Sprintf("dn-%05d.example:9866", i), rs)
		}
		if len(d.pending) != n {
			t.Fatalf("%d heartbeats pending, want %d", len(d.pending), n)
		}
		per := float64(heapObjects()-before) / float64(n*k)
		runtime.KeepAlive(d)
		t.Logf("heartbeats of %d: %.0f bytes a pending latency", k, per)
		if per > pendingLatencyBytes {
			t.Errorf("heartbeats of %d: %.0f bytes a pending latency, more than %d", k, per, pendingLatencyBytes)
		}
	}
}
