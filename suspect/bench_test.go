package suspect

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// bigCluster returns a Detector that has seen n agents, each with a
// block to each of its peers (the next peers agents by id), all healthy.
func bigCluster(n, peers int) (*Detector, []string, time.Time) {
	d := New(DefaultConfig())
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("10.%d.%d.%d:9866", i>>16, (i>>8)&255, i&255)
	}
	now := time.Unix(1_700_000_000, 0)
	for i, a := range names {
		rs := make([]reports.RecentLatency, 0, peers)
		for j := 1; j <= peers; j++ {
			rs = append(rs, reports.RecentLatency{Node: names[(i+j)%n], LatencyMs: 1 + float64(j%7)/10, Blocks: 1})
		}
		d.Observe(now, a, rs)
	}
	d.Step(now, all)
	return d, names, now
}

// The service's cost of one heartbeat's evidence at 10 000 agents of 50
// peers: an agent at one block a second heartbeats every 3 s with about
// three recent latencies; then the reply's requests (none).
func BenchmarkObserve(b *testing.B) {
	d, names, now := bigCluster(10000, 50)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := names[i%len(names)]
		rs := []reports.RecentLatency{
			{Node: names[(i+1)%len(names)], LatencyMs: 1.1, Blocks: 1},
			{Node: names[(i+2)%len(names)], LatencyMs: 1.2, Blocks: 1},
			{Node: names[(i+3)%len(names)], LatencyMs: 1.0, Blocks: 1},
		}
		d.Observe(now, a, rs)
		if d.Requests(now, a) != nil {
			b.Fatal("requests in a healthy cluster")
		}
		i++
	}
}

// BenchmarkObserve's heartbeats from agents with more peers than
// MaxPeers: at 10 000 agents of MaxPeers peers each, every latency names
// a peer its reporter holds no pair of, and replaces its oldest pair.
func BenchmarkObserveReplacing(b *testing.B) {
	d, names, now := bigCluster(10000, DefaultMaxPeers)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a := names[i%len(names)]
		k := DefaultMaxPeers + 1 + (i/len(names))*3
		rs := []reports.RecentLatency{
			{Node: names[(i+k)%len(names)], LatencyMs: 1.1, Blocks: 1},
			{Node: names[(i+k+1)%len(names)], LatencyMs: 1.2, Blocks: 1},
			{Node: names[(i+k+2)%len(names)], LatencyMs: 1.0, Blocks: 1},
		}
		d.Observe(now, a, rs)
		if d.Requests(now, a) != nil {
			b.Fatal("requests in a healthy cluster")
		}
		i++
	}
	b.StopTimer()
	if _, replaced := d.Pairs(); replaced == 0 {
		b.Fatal("nothing replaced")
	}
}

// A minute of the service's steps at 10 000 agents of 50 peers: 120
// Steps, 500 ms apart, each after the 1 667 heartbeats of its half
// second (not timed: BenchmarkObserve). ns/op over a minute is the share
// of a core; max-step-ms is the longest a Step held the detector, which
// heartbeats wait for, and p99-step-ms the 99th percentile of a Step.
func BenchmarkStepMinute(b *testing.B) {
	d, names, now := bigCluster(10000, 50)
	b.ReportAllocs()
	var steps []time.Duration
	i := 0
	for b.Loop() {
		for range 120 {
			b.StopTimer()
			now = now.Add(500 * time.Millisecond)
			for range 1667 {
				a := names[i%len(names)]
				d.Observe(now, a, []reports.RecentLatency{{Node: names[(i+7)%len(names)], LatencyMs: 1.1, Blocks: 1}})
				i++
			}
			b.StartTimer()
			start := time.Now()
			d.Step(now, all)
			steps = append(steps, time.Since(start))
		}
	}
	slices.Sort(steps)
	b.ReportMetric(float64(steps[len(steps)*99/100])/float64(time.Millisecond), "p99-step-ms")
	b.ReportMetric(float64(steps[len(steps)-1])/float64(time.Millisecond), "max-step-ms")
}
