package datanode_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
)

// A simulated agent writes its coverage blocks as a real one does: the
// pace from Config.Coverage, the peers from Rounds, and what its next
// heartbeat carries from RecentLatencies.
func ExampleRounds() {
	cfg := datanode.DefaultConfig()
	peers := []string{"10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866"}
	pace := cfg.Coverage(len(peers))
	fmt.Printf("%d packets a block, a block every %v, a round in %v\n", pace.Packets, pace.Every, pace.Round)

	rounds := datanode.NewRounds(peers, rand.New(rand.NewPCG(1, 2)))
	start := time.Unix(0, 0)
	var blocks []datanode.Block
	for i := range 2 * len(peers) {
		peer := rounds.Next()
		median := 100 * time.Microsecond
		if peer == "10.0.0.3:9866" {
			median = 2 * time.Millisecond // a slow peer
		}
		blocks = append(blocks, datanode.Block{Peer: peer, End: start.Add(time.Duration(i) * pace.Every), Median: median})
	}
	rs, dropped := datanode.RecentLatencies(blocks)
	for _, r := range rs {
		fmt.Printf("%s %.4g ms over %d blocks\n", r.Node, r.LatencyMs, r.Blocks)
	}
	fmt.Println("dropped:", dropped)
	// Unordered output:
	// 16 packets a block, a block every 1s, a round in 3s
	// 10.0.0.2:9866 0.1 ms over 2 blocks
	// 10.0.0.3:9866 2 ms over 2 blocks
	// 10.0.0.4:9866 0.1 ms over 2 blocks
	// dropped: 0
}
