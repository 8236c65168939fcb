package datanode

import (
	"log/slog"
	"sync/atomic"
)

// A dead node is not a slow node. The rolling averages of a peer span
// RollingWindows × RollingWindow (3 minutes by default, 1m × 3; 3 hours
// with Hadoop's 5m × 36); a peer that dies keeps its last averages all
// that time, and every agent that timed it would go on reporting it
// slow. So an agent counts, per peer, the probes in a row that could not
// reach it, and at ProbeMaxFailures of them drops what it measured of
// the peer: its next report no longer names it, and replaces the one
// that did (a report replaces everything its reporter said before). A
// peer that comes back is measured afresh.

// AddFailure records that peer could not be reached: a connection to it
// was refused, timed out or broke midway. A latency recorded for the peer
// (AddSendPacketDownstream) resets the count. At the ProbeMaxFailures-th
// failure in a row it drops the peer's averages, and reports true if
// there were any; later failures of the same outage drop nothing more.
// With ProbeMaxFailures 0 it never drops. A storage system that embeds
// the agent calls it when its replication pipeline cannot reach a peer.
func (m *PeerMetrics) AddFailure(peer string) (dropped bool) {
	if m.maxFailures <= 0 {
		return false
	}
	v, ok := m.failures.Load(peer)
	if !ok {
		var loaded bool
		if v, loaded = m.failures.LoadOrStore(peer, new(atomic.Int64)); !loaded {
			m.failing.Add(1)
		}
	}
	if v.(*atomic.Int64).Add(1) != m.maxFailures {
		return false
	}
	return m.averages.Delete(peer)
}

// Failures returns the number of failures in a row recorded for peer
// since it last answered.
func (m *PeerMetrics) Failures(peer string) int {
	if v, ok := m.failures.Load(peer); ok {
		return int(v.(*atomic.Int64).Load())
	}
	return 0
}

// reached clears the failures of peer, which has just answered. While no
// peer has failures, the hot path, it reads one atomic and nothing else.
func (m *PeerMetrics) reached(peer string) {
	if m.failing.Load() == 0 {
		return
	}
	if _, ok := m.failures.LoadAndDelete(peer); ok {
		m.failing.Add(-1)
	}
}

// peerFailed records in m (nil when peer statistics are off) that peer
// could not be reached, and counts and logs the drop of its averages.
func peerFailed(m *PeerMetrics, c *counters, log *slog.Logger, peer string) {
	if m == nil || !m.AddFailure(peer) {
		return
	}
	c.peersDropped.Add(1)
	log.Info("peer unreachable: its averages are dropped until it answers again",
		slog.String("peer", peer), slog.Int64("failuresInARow", m.maxFailures))
}
