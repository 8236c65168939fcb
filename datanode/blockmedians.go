package datanode

import (
	"slices"
	"sync"
	"time"
)

// recentBlocks is how many of a peer's latest probe blocks make its
// robust latency (blockMedians).
const recentBlocks = 64

// maxBlockPeers bounds the peers blockMedians keeps; a block to a peer
// beyond it is not kept (its packets are still averaged).
const maxBlockPeers = 4096

// blockMedians keeps, for every peer this agent timed probe blocks to, the
// median packet latency of each of its latest recentBlocks blocks, and
// when each ended. The median of those that ended within span (the rolling
// windows' RollingWindow × RollingWindows) is the latency the agent sends
// in peerLatencies: a peer that is slow is slow in every block, while a
// block that waited as a whole (the agent's process descheduled for a few
// milliseconds on a busy machine, a pause of either host) is one of many
// and moves it little, where it moves a mean over the same packets a lot.
// The span keeps it as recent as the averages: at one probe block a second
// over 40 peers, a peer gets a block every 40 s, its latest 64 blocks are
// 40 minutes of history, and a slow peer would take 20 minutes to move
// their median. The rolling
// averages, Hadoop's means, stay the input of the outlier test and of
// /jmx.
//
// It is safe for concurrent use; the zero value keeps no block (span 0).
type blockMedians struct {
	span time.Duration

	mu     sync.Mutex
	byPeer map[string]*medianRing // guarded by mu
}

// medianRing holds the latest block medians of one peer, in ms, and the
// instants their blocks ended (Unix nanoseconds).
type medianRing struct {
	v    [recentBlocks]float64
	at   [recentBlocks]int64
	n    int // values held, ≤ recentBlocks
	next int // where the next value goes
}

// add keeps the median latency of one more block to peer, which ended at.
func (b *blockMedians) add(peer string, at time.Time, ms float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.byPeer[peer]
	if r == nil {
		if len(b.byPeer) >= maxBlockPeers {
			return
		}
		if b.byPeer == nil {
			b.byPeer = make(map[string]*medianRing)
		}
		r = new(medianRing)
		b.byPeer[peer] = r
	}
	r.v[r.next], r.at[r.next] = ms, at.UnixNano()
	r.next = (r.next + 1) % recentBlocks
	r.n = min(r.n+1, recentBlocks)
}

// median returns the median of peer's latest block medians of blocks that
// ended within span before now, and false when there is none.
func (b *blockMedians) median(peer string, now time.Time, scratch []float64) (float64, bool) {
	oldest := now.Add(-b.span).UnixNano()
	s := scratch[:0]
	b.mu.Lock()
	if r := b.byPeer[peer]; r != nil {
		for i := range r.n {
			if r.at[i] > oldest {
				s = append(s, r.v[i])
			}
		}
	}
	b.mu.Unlock()
	if len(s) == 0 {
		return 0, false
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

// AddBlockMedianAt records that a probe block to peer ended at now, with
// median the median latency of its packets. The agent's probe pipelines
// call it for every block they time; a program that embeds PeerMetrics
// with its own per-block timings (a simulation) may too. The peer's
// latency in Detect's PeerLatencies is then the median of its blocks of
// the rolling windows' span, not the mean of its packets. The packets
// themselves are recorded with AddSendPacketDownstreamAt.
func (m *PeerMetrics) AddBlockMedianAt(now time.Time, peer string, median time.Duration) {
	m.blocks.add(peer, now, float64(median)/float64(time.Millisecond))
}
