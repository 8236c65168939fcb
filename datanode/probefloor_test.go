package datanode

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestProbeFloor(t *testing.T) {
	f := func(packetBytes int, bps int64, want time.Duration) {
		t.Helper()
		c := DefaultConfig()
		c.ProbePacketBytes, c.ProbeMinBitsPerSecond = packetBytes, bps
		if got := c.ProbeFloor(); got != want {
			t.Errorf("ProbeFloor(%d B at %d bit/s) = %v, want %v", packetBytes, bps, got, want)
		}
	}
	f(64<<10, DefaultProbeMinBitsPerSecond, 1048576*time.Nanosecond) // 1.05 ms
	f(16<<10, DefaultProbeMinBitsPerSecond, 262144*time.Nanosecond)  // 0.26 ms
	f(16<<10, 100_000_000, 1310720*time.Nanosecond)
	if got := DefaultConfig().ProbeFloor(); got != 1048576*time.Nanosecond {
		t.Errorf("default ProbeFloor %v", got)
	}

	// Probes are judged by the floor; a Hadoop DataNode's averages by
	// Hadoop's dfs.datanode.slowpeer.low.threshold.ms.
	c := DefaultConfig()
	if got := probeMetricsConfig(c).LowThreshold; got != c.ProbeFloor() {
		t.Errorf("probes: low threshold %v, want the probe floor %v", got, c.ProbeFloor())
	}
	c.HadoopJMX = "http://dn:9864/jmx"
	if got := probeMetricsConfig(c).LowThreshold; got != DefaultLowThreshold {
		t.Errorf("hadoop-jmx: low threshold %v, want %v", got, DefaultLowThreshold)
	}
	c = DefaultConfig()
	c.ID, c.NameNodes = "h:1", []string{"http://nn:9871"}
	for _, bad := range []int64{0, -1, MaxProbeMinBitsPerSecond + 1} {
		c.ProbeMinBitsPerSecond = bad
		if err := c.Validate(); err == nil {
			t.Errorf("Validate accepts %s %d", ProbeMinRateKey, bad)
		}
	}
}

// A packet that waited alone counts at most clipFactor × its block's
// median; a block that is slow as a whole counts as it is; the block's
// median is kept for peerLatencies.
func TestBlockTimesClip(t *testing.T) {
	m := NewPeerMetrics(testMetricsConfig(0, 1))
	var c counters
	now := time.Now()
	b := timeBlock(m, &c, "p:1")
	for i := range 8 {
		d := time.Millisecond
		if i == 5 {
			d = 100 * time.Millisecond // a goroutine not scheduled for 99 ms
		}
		b.add(now, d)
	}
	b.flush()
	slow := timeBlock(m, &c, "q:1")
	for range 8 {
		slow.add(now, 40*time.Millisecond)
	}
	slow.flush()
	slow.flush() // nothing left: records nothing twice
	got := m.Latencies(now)
	if len(got) != 2 || got[0].Key != "p:1" || !near(got[0].Mean, 10.0/8) || got[0].Count != 8 ||
		got[1].Key != "q:1" || !near(got[1].Mean, 40) || got[1].Count != 8 {
		t.Fatalf("latencies %+v, want p:1 at 1.25 ms (7 × 1 + 3) and q:1 at 40 ms, 8 samples each", got)
	}
	if n := c.latenciesRecorded.Load(); n != 16 {
		t.Fatalf("%d latencies counted, want 16", n)
	}
	d := m.Detect(now)
	want := map[string]float64{"p:1": 1, "q:1": 40}
	if len(d.PeerLatencies) != 2 {
		t.Fatalf("peerLatencies %+v", d.PeerLatencies)
	}
	for _, p := range d.PeerLatencies {
		if !near(p.LatencyMs, want[p.Node]) || p.Samples != 8 {
			t.Errorf("peerLatencies entry %+v, want %v ms (the block median) and 8 samples", p, want[p.Node])
		}
	}
}

func TestBlockMediansKeepsTheLatest(t *testing.T) {
	b := blockMedians{span: time.Hour}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range recentBlocks + 10 {
		b.add("p:1", t0.Add(time.Duration(i)*time.Second), float64(i))
	}
	now := t0.Add(time.Duration(recentBlocks+10) * time.Second)
	got, ok := b.median("p:1", now, nil)
	if !ok || got != float64(10+recentBlocks-1+10)/2 {
		t.Fatalf("median %v %v, want that of the latest %d", got, ok, recentBlocks)
	}
	if _, ok := b.median("q:1", now, nil); ok {
		t.Fatal("median of a peer never seen")
	}
}

// Only the blocks of the rolling windows' span count: a slow peer moves
// the median within minutes however many peers share the probes.
func TestBlockMediansKeepsTheSpan(t *testing.T) {
	b := blockMedians{span: 3 * time.Minute}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := func(at time.Duration, want float64, ok bool) {
		t.Helper()
		got, gotOK := b.median("p:1", t0.Add(at), nil)
		if got != want || gotOK != ok {
			t.Fatalf("median at %v = %v %v, want %v %v", at, got, gotOK, want, ok)
		}
	}
	// One block a minute: 1 ms until minute 6, then 10 ms.
	for i := range 10 {
		ms := 1.0
		if i >= 7 {
			ms = 10
		}
		b.add("p:1", t0.Add(time.Duration(i)*time.Minute), ms)
		switch i {
		case 6:
			f(6*time.Minute+30*time.Second, 1, true) // minutes 4, 5, 6
		case 7:
			f(7*time.Minute+30*time.Second, 1, true) // 1, 1, 10
		case 8:
			f(8*time.Minute, 10, true) // minutes 6, 7, 8: 1, 10, 10
		}
	}
	f(9*time.Minute, 10, true)  // minutes 7, 8, 9
	f(13*time.Minute, 0, false) // all older than the span
}

// Agents dial their peers through Config.Dial and send what they
// measured of every peer with their reports.
func TestAgentSendsPeerLatencies(t *testing.T) {
	const n = 4
	svc := newFakeService(t, false)
	lns, ids := loopbackListeners(t, n)
	var dials atomic.Int64
	for i := range n {
		cfg := DefaultConfig()
		cfg.ID, cfg.NameNodes, cfg.DataListener, cfg.Peers = ids[i], []string{svc.srv.URL}, lns[i], ids
		cfg.HeartbeatInterval, cfg.ReportInterval = 100*time.Millisecond, 300*time.Millisecond
		cfg.MinOutlierDetectionSamples, cfg.MinOutlierDetectionNodes = 10, 3
		cfg.ProbeInterval, cfg.ProbePackets, cfg.ProbePacketBytes = 20*time.Millisecond, 4, 4096
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		startAgent(t, a)
	}
	complete := func() bool {
		for _, hb := range svc.Beats() {
			if hb.Node != ids[0] || len(hb.PeerLatencies) != n-1 {
				continue
			}
			var peers []string
			for _, p := range hb.PeerLatencies {
				if p.Samples <= 10 || p.LatencyMs <= 0 {
					return false
				}
				peers = append(peers, p.Node)
			}
			slices.Sort(peers)
			want := slices.Clone(ids[1:])
			slices.Sort(want)
			return slices.Equal(peers, want) && hb.HasReport()
		}
		return false
	}
	waitFor(t, 30*time.Second, "a report with the latencies of every peer", complete, svc)
	if dials.Load() == 0 {
		t.Fatal("Config.Dial was never used")
	}
	for _, hb := range svc.Beats() {
		if !hb.HasReport() && hb.PeerLatencies != nil {
			t.Fatalf("peerLatencies on a heartbeat without a report: %+v", hb)
		}
	}
}

// mostInformative keeps the slowest half and then the peers with most
// samples, whatever their order, and everything when under the limit.
func TestMostInformative(t *testing.T) {
	var ps []reports.PeerLatency
	for i := range 10 {
		ps = append(ps, reports.PeerLatency{Node: fmt.Sprintf("10.0.0.%d:9866", i+1),
			LatencyMs: float64(i % 5), Samples: int64(100 * i)})
	}
	if got := mostInformative(slices.Clone(ps), 10); len(got) != 10 {
		t.Fatalf("kept %d of 10 under the limit", len(got))
	}
	got := mostInformative(slices.Clone(ps), 4)
	var names []string
	for _, p := range got {
		names = append(names, p.Node)
	}
	// Slowest: .10 and .5 (4 ms, by id); then most samples among the rest: .9, .8.
	if want := "10.0.0.10:9866 10.0.0.5:9866 10.0.0.9:9866 10.0.0.8:9866"; strings.Join(names, " ") != want {
		t.Fatalf("kept %s, want %s", strings.Join(names, " "), want)
	}
}
