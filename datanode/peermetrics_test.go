package datanode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func testMetricsConfig(minSamples int64, minNodes int) Config {
	cfg := DefaultConfig()
	cfg.MinOutlierDetectionSamples = minSamples
	cfg.MinOutlierDetectionNodes = minNodes
	return cfg
}

func peerID(i int) string { return "10.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250) + ":9866" }

// Reference: DataNodePeerMetrics.getOutliers — a peer takes part with more
// than min.outlier.detection.samples samples (strictly), and the detector
// runs with min.outlier.detection.nodes and the low threshold.
func TestPeerMetricsDetect(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	f := func(samples map[string][]time.Duration, minSamples int64, minNodes int, want Detection) {
		t.Helper()
		m := NewPeerMetrics(testMetricsConfig(minSamples, minNodes))
		for peer, ds := range samples {
			for _, d := range ds {
				m.AddSendPacketDownstreamAt(now, peer, d)
			}
		}
		got := m.Detect(now)
		if got.Peers != want.Peers || got.Skipped != want.Skipped || !near(got.MedianMs, want.MedianMs) ||
			!near(got.MADMs, want.MADMs) || !near(got.UpperLimitMs, want.UpperLimitMs) || got.SlowPeers == nil {
			t.Fatalf("Detect = %+v, want %+v", got, want)
		}
		if len(got.SlowPeers) != len(want.SlowPeers) {
			t.Fatalf("slow peers %+v, want %+v", got.SlowPeers, want.SlowPeers)
		}
		for i := range got.SlowPeers {
			g, w := got.SlowPeers[i], want.SlowPeers[i]
			if g.Node != w.Node || !near(g.LatencyMs, w.LatencyMs) || !near(g.MedianMs, got.MedianMs) ||
				!near(g.MADMs, got.MADMs) || !near(g.UpperLimitMs, got.UpperLimitMs) {
				t.Fatalf("slow peer %d = %+v, want %+v with the detection's statistics", i, g, w)
			}
		}
	}
	rep := func(d time.Duration, n int) []time.Duration { return slices.Repeat([]time.Duration{d}, n) }

	// Eleven peers at 2 ms, one at 40 ms, each with 3 samples > 2.
	s := map[string][]time.Duration{}
	for i := range 11 {
		s[peerID(i)] = rep(2*time.Millisecond, 3)
	}
	s[peerID(11)] = rep(40*time.Millisecond, 3)
	f(s, 2, 10, Detection{Peers: 12, MedianMs: 2, MADMs: 0, UpperLimitMs: 6,
		SlowPeers: []reports.SlowPeer{{Node: peerID(11), LatencyMs: 40}}})

	// With min samples 3, nobody has more than 3: everyone is left out and
	// the test is skipped (strictly more, as MutableRollingAverages.getStats).
	f(s, 3, 10, Detection{Peers: 0, Skipped: true})

	// Fewer peers than min nodes: skipped, an empty report all the same.
	f(s, 2, 13, Detection{Peers: 12, Skipped: true})

	// The average is over all samples of a peer: (1+3)/2 = 2 ms.
	s2 := map[string][]time.Duration{}
	for i := range 10 {
		s2[peerID(i)] = []time.Duration{time.Millisecond, 3 * time.Millisecond}
	}
	f(s2, 1, 10, Detection{Peers: 10, MedianMs: 2, UpperLimitMs: 6})

	// Sub-millisecond latencies keep their fraction; everyone below the
	// low threshold (5 ms) is fine however spread.
	s3 := map[string][]time.Duration{}
	for i := range 10 {
		s3[peerID(i)] = rep(time.Duration(i+1)*100*time.Microsecond, 2)
	}
	s3[peerID(10)] = rep(4900*time.Microsecond, 2)
	f(s3, 1, 10, Detection{Peers: 11, MedianMs: 0.6, MADMs: 0.3 * 1.4826, UpperLimitMs: 5})

	// A peer whose name is no node id takes part but is not reported.
	s4 := map[string][]time.Duration{}
	for i := range 10 {
		s4[peerID(i)] = rep(2*time.Millisecond, 2)
	}
	s4["not-a-node"] = rep(90*time.Millisecond, 2)
	s4[peerID(99)] = rep(80*time.Millisecond, 2)
	f(s4, 1, 10, Detection{Peers: 12, MedianMs: 2, UpperLimitMs: 6,
		SlowPeers: []reports.SlowPeer{{Node: peerID(99), LatencyMs: 80}}})
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

func TestPeerMetricsIgnoresNegative(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	m := NewPeerMetrics(testMetricsConfig(0, 1))
	m.AddSendPacketDownstreamAt(now, peerID(1), -time.Millisecond)
	if got := m.Latencies(now); len(got) != 0 {
		t.Fatalf("a negative latency was recorded: %+v", got)
	}
}

// Reference: MutableRollingAverages — samples older than windows ×
// window no longer count.
func TestPeerMetricsExpiry(t *testing.T) {
	cfg := testMetricsConfig(0, 1)
	cfg.RollingWindow, cfg.RollingWindows = time.Minute, 3
	m := NewPeerMetrics(cfg)
	t0 := time.Unix(1_700_000_000, 0).Truncate(time.Minute)
	m.AddSendPacketDownstreamAt(t0, peerID(1), 10*time.Millisecond)
	m.AddSendPacketDownstreamAt(t0.Add(2*time.Minute), peerID(1), 20*time.Millisecond)
	f := func(now time.Time, wantMean float64, wantCount int64) {
		t.Helper()
		got := m.Latencies(now)
		if wantCount == 0 {
			if len(got) != 0 {
				t.Fatalf("Latencies(%v) = %+v, want none", now.Sub(t0), got)
			}
			return
		}
		if len(got) != 1 || !near(got[0].Mean, wantMean) || got[0].Count != wantCount {
			t.Fatalf("Latencies(%v) = %+v, want mean %v of %d", now.Sub(t0), got, wantMean, wantCount)
		}
	}
	f(t0.Add(2*time.Minute), 15, 2)
	f(t0.Add(3*time.Minute), 20, 1)
	f(t0.Add(5*time.Minute), 0, 0)
}

// TestPeerMetricsReference compares Detect with a naive reference over
// random peers, samples and settings.
func TestPeerMetricsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 11194))
	now := time.Unix(1_700_000_000, 0)
	for iter := range 300 {
		minSamples := int64(rng.IntN(4))
		minNodes := 1 + rng.IntN(12)
		m := NewPeerMetrics(testMetricsConfig(minSamples, minNodes))
		sums := map[string][]float64{}
		for p := range rng.IntN(30) {
			base := 0.5 + 3*rng.Float64()
			if rng.IntN(8) == 0 {
				base = 10 + 100*rng.Float64()
			}
			for range rng.IntN(6) {
				us := int64(base * 1000 * (0.8 + 0.4*rng.Float64()))
				d := time.Duration(us) * time.Microsecond
				m.AddSendPacketDownstreamAt(now, peerID(p), d)
				sums[peerID(p)] = append(sums[peerID(p)], float64(d)/float64(time.Millisecond))
			}
		}
		got := m.Detect(now)
		want := naiveDetect(sums, minSamples, minNodes, 5)
		if got.Peers != want.Peers || got.Skipped != want.Skipped || !near(got.MedianMs, want.MedianMs) ||
			!near(got.MADMs, want.MADMs) || !near(got.UpperLimitMs, want.UpperLimitMs) {
			t.Fatalf("iteration %d: Detect = %+v, reference %+v", iter, got, want)
		}
		if fmt.Sprint(slowNames(got.SlowPeers)) != fmt.Sprint(want.slow) {
			t.Fatalf("iteration %d: slow %v, reference %v", iter, slowNames(got.SlowPeers), want.slow)
		}
	}
}

type naiveResult struct {
	Peers                         int
	Skipped                       bool
	MedianMs, MADMs, UpperLimitMs float64
	slow                          []string
}

// naiveDetect is DESIGN.md's algorithm written plainly: mean of each
// peer with more than minSamples samples, sorted median, MAD × 1.4826,
// upper limit max(low, 3 × median, median + 3 × MAD), strictly above.
func naiveDetect(samples map[string][]float64, minSamples int64, minNodes int, lowMs float64) naiveResult {
	means := map[string]float64{}
	for peer, v := range samples {
		if int64(len(v)) <= minSamples {
			continue
		}
		s := 0.0
		for _, x := range v {
			s += x
		}
		means[peer] = s / float64(len(v))
	}
	r := naiveResult{Peers: len(means), slow: []string{}}
	if len(means) < minNodes || len(means) == 0 {
		r.Skipped = true
		return r
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		sort.Float64s(v)
		n := len(v)
		if n%2 == 1 {
			return v[n/2]
		}
		return (v[n/2-1] + v[n/2]) / 2
	}
	var vals []float64
	for _, v := range means {
		vals = append(vals, v)
	}
	r.MedianMs = median(vals)
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(v - r.MedianMs)
	}
	r.MADMs = 1.4826 * median(dev)
	r.UpperLimitMs = max(lowMs, 3*r.MedianMs, r.MedianMs+3*r.MADMs)
	for peer, v := range means {
		if v > r.UpperLimitMs {
			r.slow = append(r.slow, peer)
		}
	}
	sort.Strings(r.slow)
	return r
}

// TestPeerMetricsConcurrent records from several goroutines while others
// detect; run with -race.
func TestPeerMetricsConcurrent(t *testing.T) {
	m := NewPeerMetrics(testMetricsConfig(0, 1))
	var recorders, detectors sync.WaitGroup
	var stop atomic.Bool
	for g := range 4 {
		recorders.Go(func() {
			for i := range 2000 {
				m.AddSendPacketDownstream(peerID((g*7+i)%50), time.Millisecond)
			}
		})
	}
	for range 2 {
		detectors.Go(func() {
			for !stop.Load() {
				d := m.Detect(time.Now())
				if d.SlowPeers == nil {
					t.Error("Detect returned a nil report")
					return
				}
			}
		})
	}
	recorders.Wait()
	stop.Store(true)
	detectors.Wait()
	var n int64
	for _, a := range m.Latencies(time.Now()) {
		n += a.Count
	}
	if n != 4*2000 {
		t.Fatalf("recorded %d samples, want %d", n, 4*2000)
	}
}

// TestAddSendPacketsDownstreamAt checks that a batch of packets counts as
// the packets one by one.
func TestAddSendPacketsDownstreamAt(t *testing.T) {
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	cfg := DefaultConfig()
	cfg.MinOutlierDetectionSamples = 0
	one, batch := NewPeerMetrics(cfg), NewPeerMetrics(cfg)
	for _, d := range []time.Duration{time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond} {
		one.AddSendPacketDownstreamAt(at, "10.0.0.1:9866", d)
	}
	batch.AddSendPacketsDownstreamAt(at, "10.0.0.1:9866", 6*time.Millisecond, 3)
	batch.AddSendPacketsDownstreamAt(at, "10.0.0.1:9866", -time.Millisecond, 3)
	batch.AddSendPacketsDownstreamAt(at, "10.0.0.1:9866", time.Millisecond, 0)
	got, want := batch.Latencies(at), one.Latencies(at)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Fatalf("batched %+v, one by one %+v", got, want)
	}
}
