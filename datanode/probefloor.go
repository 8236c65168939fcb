package datanode

import (
	"cmp"
	"context"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/rolling"
)

// ProbeMinRateKey is the throughput, in bits per second, below which a
// probe packet's round trip counts as slow: the floor of the agent's own
// outlier test is one packet's bits at this rate (ProbeFloor).
const ProbeMinRateKey = "slowpeer.probe.min.rate"

// DefaultProbeMinBitsPerSecond is 500 Mbit/s: a 64 KiB packet's floor is
// 1.05 ms, a 16 KiB packet's 0.26 ms. A healthy 10 GbE link moves a 64
// KiB packet and its acknowledgement in well under 0.2 ms; a link
// negotiated down to 100 Mbit/s takes 5 ms.
const DefaultProbeMinBitsPerSecond = 500_000_000

// MaxProbeMinBitsPerSecond bounds slowpeer.probe.min.rate: 1 Tbit/s.
const MaxProbeMinBitsPerSecond = 1_000_000_000_000

// ProbeFloor returns the latency at or below which no peer is slow in the
// agent's own probes: ProbePacketBytes × 8 / ProbeMinBitsPerSecond. It
// takes the place of Hadoop's fixed dfs.datanode.slowpeer.low.threshold.ms
// (LowThreshold, 5 ms) when probes are the source, so that peers are
// judged by throughput rather than by a per-packet time that depends on
// the packet size: a 16 KiB packet over a link 100 times slower than its
// peers' takes about 1.4 ms, far above its peers' 0.06 ms but under 5 ms.
// LowThreshold keeps Hadoop's meaning where a Hadoop DataNode is the source
// (HadoopJMX) and for an embedded PeerMetrics.
func (c Config) ProbeFloor() time.Duration {
	if c.ProbeMinBitsPerSecond <= 0 {
		return 0
	}
	return time.Duration(float64(c.ProbePacketBytes) * 8 / float64(c.ProbeMinBitsPerSecond) * float64(time.Second))
}

// probeMetricsConfig is cfg with the outlier test's floor that the agent's
// own latencies get: ProbeFloor when probes are the source.
func probeMetricsConfig(cfg Config) Config {
	if cfg.HadoopJMX == "" {
		cfg.LowThreshold = cfg.ProbeFloor()
	}
	return cfg
}

// dialer returns the dial function of cfg's data connections: cfg.Dial
// for TCP, or a net.Dialer.
func dialer(cfg Config) dialFunc {
	if cfg.Dial == nil {
		return dialTCP
	}
	return func(ctx context.Context, addr string) (net.Conn, error) { return cfg.Dial(ctx, "tcp", addr) }
}

// heartbeatLatencies turns the peers' averages into the heartbeat's
// peerLatencies: for a peer the agent timed probe blocks to, the median
// of its block medians of the last rolling windows' span (blockMedians),
// else the average; leaving out peers whose ids are not valid, and keeping
// at most MaxPeerLatencies (mostInformative). It is called under m.mu.
func (m *PeerMetrics) heartbeatLatencies(now time.Time, avgs []rolling.Average) []reports.PeerLatency {
	out := make([]reports.PeerLatency, 0, len(avgs))
	var scratch [recentBlocks]float64
	for _, a := range avgs {
		ms := a.Mean
		if med, ok := m.blocks.median(a.Key, now, scratch[:0]); ok {
			ms = med
		}
		if reports.ValidateNode(a.Key) != nil || reports.ValidateLatency(ms) != nil {
			continue
		}
		out = append(out, reports.PeerLatency{Node: a.Key, LatencyMs: ms, Samples: a.Count})
	}
	return mostInformative(out, m.maxSent)
}

// mostInformative returns at most n of ps: the slowest
// half (by latency, ties by id), which holds every peer the service could
// find slow from this reporter, then the peers with most samples (ties by
// id), whose cells are the steadiest and change little from one report to
// the next, so that the service's median of each peer rests on the same
// reporters. It reorders ps and returns a prefix of it.
func mostInformative(ps []reports.PeerLatency, n int) []reports.PeerLatency {
	if len(ps) <= n {
		return ps
	}
	slices.SortFunc(ps, func(a, b reports.PeerLatency) int {
		return cmp.Or(cmp.Compare(b.LatencyMs, a.LatencyMs), strings.Compare(a.Node, b.Node))
	})
	slow := (n + 1) / 2
	rest := ps[slow:]
	slices.SortFunc(rest, func(a, b reports.PeerLatency) int {
		return cmp.Or(cmp.Compare(b.Samples, a.Samples), strings.Compare(a.Node, b.Node))
	})
	return ps[:n]
}
