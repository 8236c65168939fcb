package datanode

import "log/slog"

// A dead node is not a slow node. The rolling averages of a peer span
// RollingWindows × RollingWindow (three hours by default); a peer that
// dies keeps its last averages all that time, and every agent that timed
// it would go on reporting it slow. So an agent counts, per peer, the
// probes in a row that could not reach it, and after ProbeMaxFailures of
// them drops what it measured of the peer: its next report no longer
// names it, and replaces the one that did (a report replaces everything
// its reporter said before). A peer that comes back is measured afresh.

// AddFailure records that peer could not be reached: a connection to it
// was refused, timed out or broke midway. A latency recorded for the peer
// (AddSendPacketDownstream) resets the count. After ProbeMaxFailures
// failures in a row it drops the peer's averages and reports true; with
// ProbeMaxFailures 0 it never does. A storage system that embeds the
// agent calls it when its replication pipeline cannot reach a peer.
func (m *PeerMetrics) AddFailure(peer string) (dropped bool) {
	if m.maxFailures <= 0 {
		return false
	}
	m.failMu.Lock()
	n := m.failures[peer] + 1
	if n >= m.maxFailures {
		delete(m.failures, peer)
		dropped = true
	} else {
		m.failures[peer] = n
	}
	m.failing.Store(int64(len(m.failures)))
	m.failMu.Unlock()
	if dropped {
		m.averages.Delete(peer)
	}
	return dropped
}

// Failures returns the number of failures in a row recorded for peer
// since it was last reached or dropped.
func (m *PeerMetrics) Failures(peer string) int {
	m.failMu.Lock()
	defer m.failMu.Unlock()
	return m.failures[peer]
}

// reached clears the failures of peer, which has just answered.
func (m *PeerMetrics) reached(peer string) {
	m.failMu.Lock()
	delete(m.failures, peer)
	m.failing.Store(int64(len(m.failures)))
	m.failMu.Unlock()
}

// peerFailed records in m (nil when peer statistics are off) that peer
// could not be reached, and counts and logs the drop of its averages.
func peerFailed(m *PeerMetrics, c *counters, log *slog.Logger, peer string) {
	if m == nil || !m.AddFailure(peer) {
		return
	}
	c.peersDropped.Add(1)
	log.Info("peer unreachable: its averages are dropped until it answers again",
		slog.String("peer", peer), slog.Int("failuresInARow", m.maxFailures))
}
