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

// TestHealthyDisksBothSides checks that a healthy run's disks add to
// slowpeer's figures with the fast path and without alike: a false slow
// disk is neither the fast path's nor missing from today's path.
func TestHealthyDisksBothSides(t *testing.T) {
	network := Result{Slowpeer: Metrics{FlapsPerHour: 0.25}, WithoutFastPath: &Metrics{},
		Hadoop: Metrics{FalsePositives: 18, FalsePositiveEntities: make([]string, 18)}}
	disks := Result{
		Slowpeer: Metrics{FalsePositives: 1, FalsePositiveEntities: []string{"10.1.0.246:9866:/data/1"}, FlapsPerHour: 0.75},
		Hadoop:   Metrics{FalsePositives: 2, FalsePositiveEntities: []string{"a:/data/0", "b:/data/3"}, FlapsPerHour: 1},
	}
	r := addDisks(network, disks)
	with, without := r.Slowpeer, r.WithoutFastPath
	if with.FalsePositives != 1 || without == nil || without.FalsePositives != 1 ||
		without.FalsePositiveEntities[0] != "10.1.0.246:9866:/data/1" || with.FlapsPerHour != 1 || without.FlapsPerHour != 0.75 {
		t.Fatalf("with the fast path %+v, without %+v", with, without)
	}
	if r.Hadoop.FalsePositives != 20 || network.WithoutFastPath.FalsePositives != 0 {
		t.Fatalf("Hadoop %+v; the network's own figures changed: %+v", r.Hadoop, network.WithoutFastPath)
	}
	if r := addDisks(Result{}, disks); r.WithoutFastPath != nil {
		t.Fatalf("without the fast path's run: %+v", r.WithoutFastPath)
	}
}
