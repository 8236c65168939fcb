package datanode

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/outlier"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/rolling"
)

// PeerMetrics keeps, for every downstream peer, the rolling average of the
// time it took to mirror a packet to it, and finds the peers that are much
// slower than the others. It is Hadoop's DataNodePeerMetrics: a storage
// system written in Go calls AddSendPacketDownstream on its own replication
// path and hands PeerMetrics to an Agent (Config.PeerMetrics), which sends
// the slow-peer report on its heartbeats.
//
// PeerMetrics is safe for concurrent use. Its zero value is not usable;
// construct it with NewPeerMetrics.
type PeerMetrics struct {
	averages   *rolling.Averages
	minSamples int64
	maxSent    int          // the most peerLatencies sent (MaxPeerLatencies)
	blocks     blockMedians // of the agent's own probe blocks (blockmedians.go)

	// mu guards the detector, which is not safe for concurrent use, and
	// the scratch buffer handed to it.
	mu       sync.Mutex
	detector *outlier.Detector
	samples  []outlier.Sample

	// The peers that failed to answer lately (unreachable.go): peer →
	// *atomic.Int64, its failures in a row. The hot path reads failing,
	// the number of entries, and looks a peer up only when there are any.
	maxFailures int64
	failures    sync.Map
	failing     atomic.Int64
}

// NewPeerMetrics returns an empty PeerMetrics that uses the rolling
// windows (RollingWindow, RollingWindows), the outlier settings
// (MinOutlierDetectionSamples, MinOutlierDetectionNodes, LowThreshold) and
// ProbeMaxFailures and MaxPeerLatencies of cfg; it reads no other field. It panics if those
// fields are invalid, as Config.Validate would report.
func NewPeerMetrics(cfg Config) *PeerMetrics {
	if err := cfg.validateMetrics(); err != nil {
		panic(fmt.Sprintf("BUG: datanode.NewPeerMetrics: %v", err))
	}
	return &PeerMetrics{
		averages:   rolling.New(cfg.RollingWindow, cfg.RollingWindows),
		minSamples: cfg.MinOutlierDetectionSamples,
		maxSent:    cfg.MaxPeerLatencies,
		blocks:     blockMedians{span: cfg.RollingSpan()},
		detector:   outlier.New(cfg.MinOutlierDetectionNodes, cfg.LowThreshold),

		maxFailures: int64(cfg.ProbeMaxFailures),
	}
}

// AddSendPacketDownstream records that mirroring one packet to peer took
// elapsed, from the start of the write to the peer's acknowledgement. It is
// meant for the per-packet hot path: for a peer seen before it takes one
// short lock and allocates nothing. A negative elapsed is ignored.
//
// peer is the downstream node's id, "host:port"; a peer that is not a
// valid id is timed and tested like the others but left out of reports.
// Hadoop records whole milliseconds; elapsed keeps its fraction.
//
// Reference: DataNodePeerMetrics.addSendPacketDownstream.
func (m *PeerMetrics) AddSendPacketDownstream(peer string, elapsed time.Duration) {
	m.AddSendPacketDownstreamAt(time.Now(), peer, elapsed)
}

// AddSendPacketDownstreamAt is AddSendPacketDownstream for a packet
// acknowledged at now, for callers that keep their own clock.
func (m *PeerMetrics) AddSendPacketDownstreamAt(now time.Time, peer string, elapsed time.Duration) {
	if elapsed < 0 {
		return
	}
	m.reached(peer)
	m.averages.AddAt(now, peer, float64(elapsed)/float64(time.Millisecond))
}

// AddSendPacketsDownstreamAt records that packets packets were mirrored to
// peer around now and took total between them, as packets calls of
// AddSendPacketDownstreamAt would: the rolling windows keep only sums and
// counts. It is for callers that batch their timings, such as the cluster
// simulator. A negative total or fewer than one packet records nothing.
func (m *PeerMetrics) AddSendPacketsDownstreamAt(now time.Time, peer string, total time.Duration, packets int64) {
	if total < 0 || packets < 1 {
		return
	}
	m.averages.AddBatchAt(now, peer, float64(total)/float64(time.Millisecond), packets)
}

// Latencies returns, sorted by peer, the average latency in milliseconds
// of every peer with more than MinOutlierDetectionSamples samples in the
// rolling windows valid at now: the input of the outlier test, what Hadoop
// publishes as SendPacketDownstreamAvgInfo.
func (m *PeerMetrics) Latencies(now time.Time) []rolling.Average {
	return m.averages.Snapshot(now, m.minSamples)
}

// Detection is the outcome of one slow-peer test, in milliseconds.
type Detection struct {
	// Peers is the number of peers that took part.
	Peers int
	// Skipped is true when fewer than MinOutlierDetectionNodes peers took
	// part, so that no test ran; the statistics are then 0.
	Skipped bool
	// MedianMs is the median of the peers' average latencies.
	MedianMs float64
	// MADMs is their median absolute deviation, × 1.4826.
	MADMs float64
	// UpperLimitMs is the latency a peer had to exceed to be slow.
	UpperLimitMs float64
	// SlowPeers are the slow peers, sorted by id; never nil, so that it
	// is always a report (reports.Heartbeat.SlowPeers), maybe empty.
	SlowPeers []reports.SlowPeer
	// PeerLatencies are the averages the test ran on, with their sample
	// counts, sent with the report (reports.Heartbeat.PeerLatencies); nil
	// when the source has no sample counts (HadoopJMX).
	PeerLatencies []reports.PeerLatency
}

// Detect runs the outlier test over the peers' averages at now.
//
// Reference: DataNodePeerMetrics.getOutliers, OutlierDetector.getOutlierMetrics.
func (m *PeerMetrics) Detect(now time.Time) Detection {
	avgs := m.averages.Snapshot(now, m.minSamples)
	m.mu.Lock()
	defer m.mu.Unlock()
	samples := m.samples[:0]
	for _, a := range avgs {
		samples = append(samples, outlier.Sample{Name: a.Key, LatencyMs: a.Mean})
	}
	m.samples = samples
	d := detection(m.detector.Detect(samples), len(samples))
	d.PeerLatencies = m.heartbeatLatencies(now, avgs)
	return d
}

// Outliers returns the slow-peer report at now: Detect(now).SlowPeers.
func (m *PeerMetrics) Outliers(now time.Time) []reports.SlowPeer {
	return m.Detect(now).SlowPeers
}

// detection copies a detector's result, whose outliers alias the
// detector's buffer, into a Detection, leaving out peers whose names are
// not valid node ids.
func detection(r outlier.Result, peers int) Detection {
	d := Detection{Peers: peers, Skipped: r.Skipped, MedianMs: r.MedianMs, MADMs: r.MADMs,
		UpperLimitMs: r.UpperLimitMs, SlowPeers: make([]reports.SlowPeer, 0, len(r.Outliers))}
	for _, o := range r.Outliers {
		if reports.ValidateNode(o.Name) != nil || reports.ValidateLatency(o.LatencyMs) != nil {
			continue
		}
		d.SlowPeers = append(d.SlowPeers, reports.SlowPeer{Node: o.Name, LatencyMs: o.LatencyMs,
			MedianMs: r.MedianMs, MADMs: r.MADMs, UpperLimitMs: r.UpperLimitMs})
	}
	slices.SortFunc(d.SlowPeers, func(a, b reports.SlowPeer) int { return strings.Compare(a.Node, b.Node) })
	return d
}
