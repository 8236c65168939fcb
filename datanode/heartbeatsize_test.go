package datanode

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The body of a heartbeat without a slow-peer report stays within 4 KiB
// at the 99th percentile with recentLatencies, at the defaults, whatever
// the cluster's size: the coverage rounds send at most ProbePackets blocks
// a ProbeInterval (16 a second), so a heartbeat every 3 s carries at most
// some 48 peers. Each heartbeat carries the blocks that ended since the
// one before, as the coverage rounds (Rounds, Coverage) write them, with
// packet latencies of 0.05 to 5 ms. The heartbeat after a failed one
// carries twice as many blocks; its size is logged, not bounded. It logs
// the sizes; reproduce with
//
//	go test -run TestHeartbeatBodySize -v ./datanode
func TestHeartbeatBodySize(t *testing.T) {
	cfg := DefaultConfig()
	id := func(i int) string { return fmt.Sprintf("10.%d.%d.%d:9866", 100+i/65536, 100+i/256%256, 100+i%256) }
	for _, peers := range []int{3, 11, 40, 240, 1000, 10000} {
		rng := rand.New(rand.NewPCG(uint64(peers), 1))
		names := make([]string, peers)
		for i := range names {
			names[i] = id(i + 1)
		}
		rounds := NewRounds(names, rng)
		c := cfg.Coverage(peers)
		self := id(0)
		without, err := json.Marshal(reports.Heartbeat{Node: self, HTTPAddress: self[:len(self)-4] + "9872"})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Unix(0, 0)
		size := func(span time.Duration) int {
			var blocks []Block
			for end := at.Add(span); at.Before(end); at = at.Add(c.Every) {
				ms := 0.05 * float64(rng.IntN(100)+1)
				blocks = append(blocks, Block{Peer: rounds.Next(), End: at, Median: time.Duration(ms * float64(time.Millisecond))})
			}
			rs, _ := RecentLatencies(blocks)
			body, err := json.Marshal(reports.Heartbeat{Node: self, HTTPAddress: self[:len(self)-4] + "9872", RecentLatencies: rs})
			if err != nil {
				t.Fatal(err)
			}
			return len(body)
		}
		var sizes []int
		for range 2000 {
			sizes = append(sizes, size(cfg.HeartbeatInterval))
		}
		slices.Sort(sizes)
		p50, p99, top := sizes[len(sizes)/2], sizes[len(sizes)*99/100], sizes[len(sizes)-1]
		t.Logf("%5d peers: %2d packets a block, a block every %v: body without recentLatencies %d B; with: p50 %d B, p99 %d B, max %d B; after a failed heartbeat %d B",
			peers, c.Packets, c.Every, len(without), p50, p99, top, size(2*cfg.HeartbeatInterval))
		if p99 > 4096 {
			t.Errorf("%d peers: heartbeat body p99 %d B, more than 4 KiB", peers, p99)
		}
	}
}

// loadID is the id of node i, of the longest form (10.100.101.102:9866).
func loadID(i int) string {
	return fmt.Sprintf("10.%d.%d.%d:9866", 100+i/65536, 100+i/256%256, 100+i%256)
}

// reportHeartbeat is the heartbeat that carries a slow-peer report of
// peers peers as the agent writes it: an empty slowPeers, peerLatencies
// of at most DefaultMaxPeerLatencies of them (medians of block medians,
// at full precision; 1 000 to 2 000 samples), and recent latencies of
// recent of them.
func reportHeartbeat(peers, recent int) reports.Heartbeat {
	rng := rand.New(rand.NewPCG(uint64(peers), uint64(recent)))
	self := loadID(0)
	hb := reports.Heartbeat{Node: self, HTTPAddress: self[:len(self)-4] + "9872", SlowPeers: []reports.SlowPeer{}}
	for i := range min(peers, DefaultMaxPeerLatencies) {
		hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: loadID(i + 1),
			LatencyMs: 0.05 + 5*rng.Float64(), Samples: int64(1000 + rng.IntN(1000))})
	}
	for i := range recent {
		hb.RecentLatencies = append(hb.RecentLatencies, reports.RecentLatency{Node: loadID(1 + i%peers),
			LatencyMs: significant4(0.05 + 5*rng.Float64()), Blocks: 1})
	}
	return hb
}

// The bodies an agent sends at the production defaults, on the wire: a
// heartbeat every 3 s, one in every 100 (a report every 5 minutes)
// carrying the report's peerLatencies beside the recent latencies. Those
// are 1 % of all, so the 99th percentile sits on them: plain it is over
// 4 KiB with more than some 50 peers; as sent to a service that takes gzip
// (bodies over reports.GzipMinBytes compressed at reports.GzipLevel) it
// stays within 4 KiB at every cluster size. It logs both; reproduce with
//
//	go test -run TestHeartbeatWireSize -v ./datanode
func TestHeartbeatWireSize(t *testing.T) {
	cfg := DefaultConfig()
	perReport := int(cfg.ReportInterval / cfg.HeartbeatInterval)
	if perReport != 100 {
		t.Fatalf("a report every %d heartbeats at the defaults, want 100", perReport)
	}
	for _, peers := range []int{11, 40, 50, 64, 79, 240, 1000} {
		rng := rand.New(rand.NewPCG(uint64(peers), 2))
		names := make([]string, peers)
		for i := range names {
			names[i] = loadID(i + 1)
		}
		rounds := NewRounds(names, rng)
		c := cfg.Coverage(peers)
		report := reportHeartbeat(peers, 0)
		at := time.Unix(0, 0)
		var plain, wire []int
		for n := range 20 * perReport {
			var blocks []Block
			for end := at.Add(cfg.HeartbeatInterval); at.Before(end); at = at.Add(c.Every) {
				ms := 0.05 * float64(rng.IntN(100)+1)
				blocks = append(blocks, Block{Peer: rounds.Next(), End: at, Median: time.Duration(ms * float64(time.Millisecond))})
			}
			hb := reports.Heartbeat{Node: report.Node, HTTPAddress: report.HTTPAddress}
			if n%perReport == 0 {
				hb = report
			}
			hb.RecentLatencies, _ = RecentLatencies(blocks)
			body, err := json.Marshal(hb)
			if err != nil {
				t.Fatal(err)
			}
			plain = append(plain, len(body))
			if len(body) > reports.GzipMinBytes {
				body = compress(body)
			}
			wire = append(wire, len(body))
		}
		slices.Sort(plain)
		slices.Sort(wire)
		q := func(s []int, q float64) int { return s[min(len(s)-1, int(q*float64(len(s))))] }
		t.Logf("%4d peers: plain p50 %5d B, p99 %5d B, max %5d B; on the wire p50 %5d B, p99 %5d B, max %5d B",
			peers, q(plain, 0.5), q(plain, 0.99), plain[len(plain)-1], q(wire, 0.5), q(wire, 0.99), wire[len(wire)-1])
		if p99 := q(wire, 0.99); p99 > 4096 {
			t.Errorf("%d peers: heartbeat body p99 on the wire %d B, more than 4 KiB", peers, p99)
		}
	}
}
