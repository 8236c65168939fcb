package datanode

import (
	"math/rand/v2"
	"time"
)

// Coverage is the pace of an agent's coverage rounds (Config.Coverage):
// every Every one probe block of Packets packets to one peer, the next of
// the round (Rounds), so that a round over all peers lasts Round.
type Coverage struct {
	// Packets is the number of packets in one coverage block, 1 to
	// ProbePackets.
	Packets int
	// Every is the time between the starts of two coverage blocks.
	Every time.Duration
	// Round is the time one round over every peer takes: peers × Every.
	Round time.Duration
}

// Met reports whether every peer gets a block at least every coverage:
// a peer may be the first of one round and the last of the next, so two
// of its blocks lie at most two rounds apart.
func (c Coverage) Met(coverage time.Duration) bool { return 2*c.Round <= coverage }

// Coverage returns the pace of the coverage rounds over peers peers
// (without this node).
//
// The agent sends what it did before the rounds: ProbePackets packets of
// ProbePacketBytes every ProbeInterval, at most ProbeMaxBytesPerSecond.
// Each coverage block goes to one peer, where a block of the random
// pipelines it replaces crossed two or three links, so an agent's probes
// now carry 40 to 50 % of the bytes they did (BENCHMARKS.md). Within that
// budget a block has as many packets, up to ProbePackets, as let a round
// last at most half of ProbeCoverage (Met); with too many peers for that
// a block has one packet and the round lasts longer (cmd/slowpeer warns).
// At the defaults (16 packets of 64 KiB a second, 30 s) a block has 16
// packets up to 15 peers, 6 for 40 and 1 from 121 to 240 peers.
func (c Config) Coverage(peers int) Coverage {
	perSecond := float64(c.ProbePackets) / c.ProbeInterval.Seconds()
	perSecond = min(perSecond, float64(c.ProbeMaxBytesPerSecond)/float64(c.ProbePacketBytes))
	k := c.ProbePackets
	if peers > 0 {
		k = int(perSecond * (c.ProbeCoverage / 2).Seconds() / float64(peers))
		k = min(max(k, 1), c.ProbePackets)
	}
	every := time.Duration(float64(k) / perSecond * float64(time.Second))
	return Coverage{Packets: k, Every: every, Round: time.Duration(peers) * every}
}

// Rounds hands out the peers of an agent's coverage blocks in rounds:
// every peer once a round, in a new random order each round (a
// Fisher–Yates shuffle), so that every peer is measured once a round and
// no two agents probe in step. The simulator runs the same rounds.
//
// A Rounds is not safe for concurrent use; construct it with NewRounds.
type Rounds struct {
	rng   *rand.Rand
	order []string
	next  int // the next index of order; len(order) starts a new round
}

// NewRounds returns the rounds over peers (copied), shuffled with rng.
func NewRounds(peers []string, rng *rand.Rand) *Rounds {
	order := append([]string(nil), peers...)
	return &Rounds{rng: rng, order: order, next: len(order)}
}

// Next returns the peer of the next coverage block, "" when there are no
// peers.
func (r *Rounds) Next() string {
	if len(r.order) == 0 {
		return ""
	}
	if r.next == len(r.order) {
		r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
		r.next = 0
	}
	p := r.order[r.next]
	r.next++
	return p
}
