//go:build e2e

package main

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The evidence of TestServiceLoad's agents: every heartbeat carries the
// recentLatencies of the coverage blocks the agent ended since its last
// (at the defaults, a block every 187.5 or 250 ms for 50 to 79 peers: 12
// to 16 entries), and the answers to the probe requests of its last
// reply, as a real agent's (datanode.RecentLatencies) do.

var (
	replyNotSlow = []byte(`{"slow":false}`)
	replySlow    = []byte(`{"slow":true}`)
)

// loadAgent is what a worker keeps of one of its agents.
type loadAgent struct {
	order  []int32 // indices of the agent's peers, this round's order
	next   int     // the next of order
	blocks float64 // coverage blocks due, the fraction carried over
	last   time.Duration
	probes []reports.ProbeRequest // of the last reply
}

// loadEntry is one recent latency being written: the peer's index among
// the agent's peers, its latency, its blocks and round.
type loadEntry struct {
	peer   int32
	ms     float64
	blocks int
	round  int64
}

// body writes agent i's heartbeat at d after the start, with its report
// when report is set, into w.buf and returns it.
func (w *loadWorker) body(a *loadAgent, i int, d time.Duration, report bool) []byte {
	b := w.buf[:0]
	if report {
		b = append(b, w.lc.report[i]...)
	} else {
		b = append(b, w.lc.plain[i]...)
	}
	w.ents = w.ents[:0]
	a.blocks += float64(d-a.last) / float64(w.lc.every[i])
	a.last = d
	for ; a.blocks >= 1; a.blocks-- {
		k := a.nextPeer(w, i)
		if at := slices.IndexFunc(w.ents, func(e loadEntry) bool { return e.peer == k }); at >= 0 {
			w.ents[at].blocks++ // a peer at the end of one round and the start of the next
			continue
		}
		w.ents = append(w.ents, loadEntry{peer: k, ms: w.latency(i, k, d), blocks: 1})
	}
	for _, p := range a.probes {
		k := w.lc.peerIndex(i, p.Node)
		if k < 0 {
			w.tally.ignored.Add(1) // a real agent ignores it too
			continue
		}
		w.ents = append(w.ents, loadEntry{peer: k, ms: w.latency(i, k, d), blocks: p.Blocks, round: p.Round})
		w.tally.answered.Add(1)
	}
	a.probes = nil
	if len(w.ents) > 0 {
		b = append(b, `,"recentLatencies":[`...)
		for n, e := range w.ents {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"node":"`...)
			b = append(b, w.lc.nodes[w.lc.peers[i][e.peer]]...)
			b = append(b, `","latencyMs":`...)
			b = strconv.AppendFloat(b, e.ms, 'g', 4, 64)
			b = append(b, `,"blocks":`...)
			b = strconv.AppendInt(b, int64(e.blocks), 10)
			if e.round > 0 {
				b = append(b, `,"round":`...)
				b = strconv.AppendInt(b, e.round, 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, '}')
	w.buf = b
	return b
}

// nextPeer returns the peer (an index among agent i's peers) of a's next
// coverage block: every peer once a round, in a new order each round, as
// datanode.Rounds.
func (a *loadAgent) nextPeer(w *loadWorker, i int) int32 {
	if a.order == nil {
		a.order = make([]int32, len(w.lc.peers[i]))
		for k := range a.order {
			a.order[k] = int32(k)
		}
		a.next = len(a.order)
	}
	if a.next == len(a.order) {
		w.rng.Shuffle(len(a.order), func(x, y int) { a.order[x], a.order[y] = a.order[y], a.order[x] })
		a.next = 0
	}
	k := a.order[a.next]
	a.next++
	return k
}

// latency is the median latency of a block from node i to its peer k at
// d after the start: the pair's own, healthy or slow, within ±10 %.
func (w *loadWorker) latency(i int, k int32, d time.Duration) float64 {
	ms := w.lc.normalMs[i][k]
	if w.lc.slowAt(int(w.lc.peers[i][k]), d) {
		ms = w.lc.slowMs[i][k]
	}
	return float64(ms) * (0.9 + 0.2*w.rng.Float64())
}

// peerIndex returns the index of node among node i's peers, or -1.
func (c *loadCluster) peerIndex(i int, node string) int32 {
	for k, p := range c.peers[i] {
		if c.nodes[p] == node {
			return int32(k)
		}
	}
	return -1
}

// loadTally counts what the agents did besides heartbeats: probe
// requests asked, answered and ignored, gzip bodies sent, and the size of
// every body as sent. It is safe for concurrent use.
type loadTally struct {
	asked, answered, ignored, gzipped atomic.Int64

	mu    sync.Mutex
	sizes []int32 // guarded by mu
}

func (t *loadTally) body(bytes int) {
	t.mu.Lock()
	t.sizes = append(t.sizes, int32(bytes))
	t.mu.Unlock()
}

// sizeQuantiles returns the p50, p99 and largest body size sent.
func (t *loadTally) sizeQuantiles() (p50, p99, top int) {
	t.mu.Lock()
	s := slices.Clone(t.sizes)
	t.mu.Unlock()
	if len(s) == 0 {
		return 0, 0, 0
	}
	slices.Sort(s)
	at := func(q float64) int { return int(s[min(len(s)-1, int(q*float64(len(s))))]) }
	return at(0.5), at(0.99), int(s[len(s)-1])
}
