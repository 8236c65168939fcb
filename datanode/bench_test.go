package datanode

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAddSendPacketDownstream is the per-packet hot path of an
// embedding storage system: b.RunParallel's goroutines (one per
// GOMAXPROCS) record into 1 000 known peers, each walking them from its
// own starting point. Compare ns/op across -cpu 1,2:
//
//	go test -run '^$' -bench 'AddSendPacketDownstream|TimeNow' -benchmem -cpu 1,2 ./datanode
func BenchmarkAddSendPacketDownstream(b *testing.B) {
	m := NewPeerMetrics(DefaultConfig())
	peers := make([]string, 1000)
	for i := range peers {
		peers[i] = peerID(i)
		m.AddSendPacketDownstream(peers[i], time.Millisecond)
	}
	var start atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(start.Add(397)) % len(peers)
		for pb.Next() {
			m.AddSendPacketDownstream(peers[i], 1500*time.Microsecond)
			if i++; i == len(peers) {
				i = 0
			}
		}
	})
}

// BenchmarkAddSendPacketDownstreamAt is the same with the caller's own
// timestamp, the one it took when the ack arrived: one clock read fewer.
func BenchmarkAddSendPacketDownstreamAt(b *testing.B) {
	m := NewPeerMetrics(DefaultConfig())
	now := time.Now()
	peers := make([]string, 1000)
	for i := range peers {
		peers[i] = peerID(i)
		m.AddSendPacketDownstreamAt(now, peers[i], time.Millisecond)
	}
	var start atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(start.Add(397)) % len(peers)
		for pb.Next() {
			m.AddSendPacketDownstreamAt(now, peers[i], 1500*time.Microsecond)
			if i++; i == len(peers) {
				i = 0
			}
		}
	})
}

// BenchmarkTimeNow is the clock read AddSendPacketDownstream makes, the
// baseline to compare it with in the same run.
func BenchmarkTimeNow(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = time.Now()
		}
	})
}

// BenchmarkDetect is one slow-peer test over 1 000 peers with samples in
// every window, the work of one report.
func BenchmarkDetect(b *testing.B) {
	cfg := DefaultConfig()
	cfg.MinOutlierDetectionSamples = 0
	m := NewPeerMetrics(cfg)
	now := time.Unix(1_700_000_000, 0)
	for w := range DefaultRollingWindows {
		at := now.Add(-time.Duration(w) * DefaultRollingWindow)
		for i := range 1000 {
			m.AddSendPacketDownstreamAt(at, peerID(i), time.Duration(1000+i)*time.Microsecond)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := m.Detect(now); d.Peers != 1000 {
			b.Fatalf("%d peers took part, want 1000", d.Peers)
		}
	}
}
