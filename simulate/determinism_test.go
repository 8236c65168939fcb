package simulate

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/suspect"
)

// TestFastPathDeterministic checks that a run with the fast path is a
// function of its seed alone, whatever the workers: on a cluster whose
// model holds more pairs than the detector's sample of the cluster's
// level, with incidents that open suspicions and ask probe requests, two
// runs give the same JSON.
func TestFastPathDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 160 nodes")
	}
	run := func(workers int) string {
		t.Helper()
		cfg := DefaultConfig(160, SlowSender)
		cfg.Seed, cfg.Workers = 3, workers
		cfg.RackSize, cfg.RemotePeers = 20, 20 // 39 peers: 6 240 pairs
		cfg.Warmup, cfg.Incidents, cfg.Every, cfg.Lasting = 10*time.Minute, 3, 4*time.Minute, 3*time.Minute
		cfg.Hours = (3*cfg.Every + LateGrace).Hours()
		fp := suspect.DefaultConfig()
		fp.MaxPeers = 24 // under the 39 peers: pairs replaced all along
		cfg.FastPath = &fp
		r, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Cost == nil || r.Cost.RequestedBlocksPerAgentHour <= 0 {
			t.Fatalf("no probe requests: %+v", r.Cost)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b, c := run(1), run(1), run(3)
	if a != b {
		t.Fatalf("same seed, two runs:\n%s\n%s", a, b)
	}
	if a != c {
		t.Fatalf("same seed, 1 and 3 workers:\n%s\n%s", a, c)
	}
}
