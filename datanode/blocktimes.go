package datanode

import (
	"slices"
	"time"
)

// clipFactor bounds a probe packet's latency by its block: a packet counts
// at most clipFactor × the median latency of its block's packets.
//
// A slow peer, a slow link or a slow sender makes every packet of a block
// slow, and the median with them, so clipping changes nothing there. What
// it removes is the packet that waited alone: for a goroutine to be
// scheduled on a busy machine, for a garbage collection, for a thread
// taken by a CPU hog. Such a wait lasts milliseconds to hundreds of
// milliseconds, and one of them in an average of a few hundred packets of
// 0.1 ms would make a healthy peer look slow as soon as the outlier test's
// floor is below Hadoop's 5 ms (ProbeFloor).
const clipFactor = 3

// blockTimes collects the latencies of one probe block's packets to the
// last node of its pipeline and records them, clipped, when the block
// ends. A blockTimes is used by one goroutine; its zero value records
// nothing.
type blockTimes struct {
	metrics  *PeerMetrics // nil: time nothing
	counters *counters
	peer     string
	recent   *recentLog // nil: the block goes into no heartbeat's recentLatencies
	round    int64      // the confirmation round that asked for the block, 0 for none
	ends     []time.Time
	took     []time.Duration
	scratch  []time.Duration
}

// timeBlock returns the blockTimes of a block to peer, recorded into m
// (nil: nothing is recorded).
func timeBlock(m *PeerMetrics, c *counters, peer string) *blockTimes {
	return &blockTimes{metrics: m, counters: c, peer: peer}
}

// add notes that a packet acknowledged at end took took.
func (b *blockTimes) add(end time.Time, took time.Duration) {
	if b == nil || b.metrics == nil {
		return
	}
	b.ends = append(b.ends, end)
	b.took = append(b.took, took)
}

// flush records the packets added so far, each at most clipFactor × their
// median, and forgets them. A block that failed half-way records the
// packets acknowledged before the failure.
func (b *blockTimes) flush() {
	if b == nil || b.metrics == nil || len(b.took) == 0 {
		return
	}
	b.scratch = append(b.scratch[:0], b.took...)
	slices.Sort(b.scratch)
	n := len(b.scratch)
	median := b.scratch[n/2]
	if n%2 == 0 {
		median = (b.scratch[n/2-1] + b.scratch[n/2]) / 2
	}
	end := b.ends[len(b.ends)-1]
	b.metrics.blocks.add(b.peer, end, float64(median)/float64(time.Millisecond))
	if b.recent != nil {
		b.recent.add(Block{Peer: b.peer, End: end, Median: median, Round: b.round})
	}
	limit := clipFactor * median
	for i, d := range b.took {
		b.metrics.AddSendPacketDownstreamAt(b.ends[i], b.peer, min(d, limit))
	}
	b.counters.latenciesRecorded.Add(int64(len(b.took)))
	b.ends, b.took = b.ends[:0], b.took[:0]
}
