package datanode

import (
	"slices"
	"sync"
)

// recentBlocks is how many of a peer's latest probe blocks make its
// robust latency (blockMedians).
const recentBlocks = 64

// maxBlockPeers bounds the peers blockMedians keeps; a block to a peer
// beyond it is not kept (its packets are still averaged).
const maxBlockPeers = 4096

// blockMedians keeps, for every peer this agent timed probe blocks to, the
// median packet latency of each of its latest recentBlocks blocks. Their
// median is the latency the agent sends in peerLatencies: a peer that is
// slow is slow in every block, while a block that waited as a whole (the
// agent's process descheduled for a few milliseconds on a busy machine)
// is one of many and moves it little, where it moves a mean over the same
// packets a lot. The rolling averages, Hadoop's means, stay the input of
// the outlier test and of /jmx.
//
// It is safe for concurrent use; the zero value is empty and ready.
type blockMedians struct {
	mu     sync.Mutex
	byPeer map[string]*medianRing // guarded by mu
}

// medianRing holds the latest block medians of one peer, in ms.
type medianRing struct {
	v    [recentBlocks]float64
	n    int // values held, ≤ recentBlocks
	next int // where the next value goes
}

// add keeps the median latency of one more block to peer.
func (b *blockMedians) add(peer string, ms float64) {
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
	r.v[r.next] = ms
	r.next = (r.next + 1) % recentBlocks
	r.n = min(r.n+1, recentBlocks)
}

// median returns the median of peer's latest block medians, and false
// when no block to peer was kept.
func (b *blockMedians) median(peer string, scratch []float64) (float64, bool) {
	b.mu.Lock()
	r := b.byPeer[peer]
	if r == nil || r.n == 0 {
		b.mu.Unlock()
		return 0, false
	}
	s := append(scratch[:0], r.v[:r.n]...)
	b.mu.Unlock()
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}
