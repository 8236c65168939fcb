package datanode

import "sync/atomic"

// Stats are an agent's counters since it was made. Every field only grows.
type Stats struct {
	// HeartbeatsSent counts heartbeats a service acknowledged.
	HeartbeatsSent int64
	// HeartbeatsFailed counts heartbeats that failed (no answer, an
	// error status or a malformed reply).
	HeartbeatsFailed int64
	// ReportsSent counts slow-peer reports a service acknowledged.
	ReportsSent int64

	// ProbeBlocks counts the probe blocks this agent wrote to the end.
	ProbeBlocks int64
	// ProbeBlocksFailed counts the probe blocks this agent began to write
	// and could not finish.
	ProbeBlocksFailed int64
	// RelayedBlocks counts the probe blocks of others this agent received
	// to the end on its data port.
	RelayedBlocks int64
	// ProbeBytesSent counts the probe bytes (headers and payload) this
	// agent wrote, its own blocks and those it forwarded.
	ProbeBytesSent int64
	// ProbeBytesReceived counts the probe bytes this agent read, packets
	// and acknowledgements.
	ProbeBytesReceived int64
	// LatenciesRecorded counts the packet latencies this agent recorded as
	// the next-to-last node of a pipeline.
	LatenciesRecorded int64
	// CorruptPackets counts packets that arrived with a checksum that does
	// not match their payload; none is timed.
	CorruptPackets int64
	// DroppedConnections counts probe connections that failed midway: a
	// refused dial, a reset, a timeout or an early end.
	DroppedConnections int64
	// ProtocolErrors counts probe connections closed because a peer sent
	// something that is not the probe protocol or did not follow it.
	ProtocolErrors int64
	// RefusedConnections counts connections closed at once because
	// MaxInboundProbes were being served.
	RefusedConnections int64
	// PeersDropped counts the times the agent dropped its averages of a
	// peer it failed to reach ProbeMaxFailures times in a row.
	PeersDropped int64

	// ProbeRequestedBlocks counts the probe blocks this agent wrote at a
	// service's request (a heartbeat reply's probe).
	ProbeRequestedBlocks int64
	// ProbeRequestsIgnored counts the probe requests this agent did not
	// obey: malformed, for a peer it does not probe, or over its
	// slowpeer.probe.confirm.budget.
	ProbeRequestsIgnored int64
	// RecentBlocksDropped counts the probe blocks left out of heartbeats'
	// recentLatencies: past their 256 entries, or held for a service that
	// did not answer past the recent log's bound.
	RecentBlocksDropped int64

	// JMXScrapes counts /jmx documents read and understood.
	JMXScrapes int64
	// JMXErrors counts failed /jmx reads, malformed documents included.
	JMXErrors int64

	// DiskProbes counts the disk probe operations timed.
	DiskProbes int64
	// DiskProbeErrors counts the disk probe operations that failed.
	DiskProbeErrors int64
	// DiskProbesSkipped counts the turns a disk probe skipped because the
	// device under its volume was busy with other work.
	DiskProbesSkipped int64
	// DiskStatsReads counts the reads of the kernel's disk counters.
	DiskStatsReads int64
}

// counters are the atomics behind Stats.
type counters struct {
	heartbeatsSent, heartbeatsFailed, reportsSent                    atomic.Int64
	probeBlocks, probeBlocksFailed, relayedBlocks                    atomic.Int64
	probeBytesSent, probeBytesReceived, latenciesRecorded            atomic.Int64
	corruptPackets, droppedConnections, protocolErrors, refusedConns atomic.Int64
	peersDropped                                                     atomic.Int64
	probeRequestedBlocks, probeRequestsIgnored, recentBlocksDropped  atomic.Int64
	jmxScrapes, jmxErrors                                            atomic.Int64
	diskProbes, diskProbeErrors, diskProbesSkipped, diskStatsReads   atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		HeartbeatsSent:       c.heartbeatsSent.Load(),
		HeartbeatsFailed:     c.heartbeatsFailed.Load(),
		ReportsSent:          c.reportsSent.Load(),
		ProbeBlocks:          c.probeBlocks.Load(),
		ProbeBlocksFailed:    c.probeBlocksFailed.Load(),
		RelayedBlocks:        c.relayedBlocks.Load(),
		ProbeBytesSent:       c.probeBytesSent.Load(),
		ProbeBytesReceived:   c.probeBytesReceived.Load(),
		LatenciesRecorded:    c.latenciesRecorded.Load(),
		CorruptPackets:       c.corruptPackets.Load(),
		DroppedConnections:   c.droppedConnections.Load(),
		ProtocolErrors:       c.protocolErrors.Load(),
		RefusedConnections:   c.refusedConns.Load(),
		PeersDropped:         c.peersDropped.Load(),
		JMXScrapes:           c.jmxScrapes.Load(),
		ProbeRequestedBlocks: c.probeRequestedBlocks.Load(),
		ProbeRequestsIgnored: c.probeRequestsIgnored.Load(),
		RecentBlocksDropped:  c.recentBlocksDropped.Load(),
		JMXErrors:            c.jmxErrors.Load(),
		DiskProbes:           c.diskProbes.Load(),
		DiskProbeErrors:      c.diskProbeErrors.Load(),
		DiskProbesSkipped:    c.diskProbesSkipped.Load(),
		DiskStatsReads:       c.diskStatsReads.Load(),
	}
}
