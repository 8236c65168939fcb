package simulate

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSimulateDiskBaseline checks the disks' side beside slowpeer's (the
// scenarios themselves are in TestSimulateScenarios): Hadoop's test,
// which compares a node's volumes with each other, reports a volume
// merely busy with a sequential writer, and misses most of a node whose
// every volume is slow.
func TestSimulateDiskBaseline(t *testing.T) {
	run := func(sc Scenario, seed uint64) Result {
		t.Helper()
		cfg := small(sc, seed)
		cfg.Tick = time.Minute // the disks need no finer tick; the test stays short
		r, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	busy := run(BusyDisk, 1)
	if busy.Slowpeer.FalsePositives != 0 || busy.Hadoop.FalsePositives == 0 {
		t.Fatalf("busy-disk: slowpeer %+v, Hadoop %+v", busy.Slowpeer, busy.Hadoop)
	}
	ctl := run(SlowController, 1)
	if ctl.Slowpeer.Recall == nil || *ctl.Slowpeer.Recall != 1 || ctl.Slowpeer.FalsePositives != 0 {
		t.Fatalf("slow-controller: slowpeer %+v, truth %v", ctl.Slowpeer, ctl.Truth)
	}
	if r := ctl.Hadoop.Recall; r == nil || *r >= 0.5 {
		t.Fatalf("slow-controller: Hadoop's recall %v, want under a half", ptr(r))
	}
	for _, id := range ctl.Truth {
		if !strings.Contains(id, ":/data/") {
			t.Fatalf("a disk's id %q is not node:volume", id)
		}
	}
}
