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
