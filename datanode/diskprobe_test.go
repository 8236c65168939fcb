package datanode

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

func TestProbePause(t *testing.T) {
	f := func(elapsed, interval time.Duration, share float64, want time.Duration) {
		t.Helper()
		if got := probePause(elapsed, interval, share); got != want {
			t.Errorf("probePause(%v, %v, %v) = %v, want %v", elapsed, interval, share, got, want)
		}
	}
	// An SSD's 0.1 ms at 0.1 %: the interval binds.
	f(100*time.Microsecond, time.Second, 0.001, time.Second)
	// A disk's 8 ms seek: 8 s, to stay at 0.1 %.
	f(8*time.Millisecond, time.Second, 0.001, 8*time.Second)
	// A sick disk's 2 s: a minute at most.
	f(2*time.Second, time.Second, 0.001, time.Minute)
	// No budget: the interval.
	f(time.Second, 200*time.Millisecond, 0, 200*time.Millisecond)
	// An interval longer than the cap still holds.
	f(time.Second, 2*time.Minute, 0.001, 2*time.Minute)
}

func TestProbeClip(t *testing.T) {
	var r recentLatencies
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for i, c := range []struct{ in, want int }{
		{10, 10}, {90, 90}, // fewer than three: as measured
		{10, 10}, {11, 11},
		{200, 33}, // a lone spike: 3 × the median of 10, 90, 10, 11, 200
		{12, 12},
		// The disk turns slow: clipped until the median follows, by the
		// second slow probe after the spike.
		{200, 36}, {200, 200}, {210, 210},
	} {
		if got := r.clip(ms(c.in)); got != ms(c.want) {
			t.Fatalf("probe %d: clip(%v) = %v, want %v", i, ms(c.in), got, ms(c.want))
		}
	}
}

func newTestProber(t *testing.T, dir string, busy func() bool) (*diskProber, *disk.Recorder, *counters) {
	t.Helper()
	rec, err := disk.NewRecorder(time.Minute, 3, []disk.Volume{{Path: dir}})
	if err != nil {
		t.Fatal(err)
	}
	c := &counters{}
	return &diskProber{volume: dir, rec: rec, interval: 5 * time.Millisecond, share: 1, busy: busy, counters: c,
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), rng: rand.New(rand.NewPCG(1, 2))}, rec, c
}

// The probes time every operation on the volume, keep their files in a
// hidden directory of it, and remove it when they stop.
func TestDiskProberRecordsAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	// A directory an agent that crashed left behind is replaced.
	if err := os.MkdirAll(filepath.Join(dir, ProbeDirName, "old"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, rec, c := newTestProber(t, dir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	testenv.WaitFor(t, "a probe of each operation", 10*time.Second, func() bool { return c.diskProbes.Load() >= 6 })
	if _, err := os.Stat(filepath.Join(dir, ProbeDirName, "old")); err == nil {
		t.Error("the old probe directory was kept")
	}
	cancel()
	<-done
	stats := rec.SnapshotAt(time.Now())[0]
	for _, op := range disk.Ops() {
		if stats.Ops[op].Samples < 2 || stats.Ops[op].MeanMs <= 0 {
			t.Errorf("%v: %+v, want samples of a positive latency", op, stats.Ops[op])
		}
	}
	if c.diskProbeErrors.Load() != 0 {
		t.Errorf("%d probe errors", c.diskProbeErrors.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, ProbeDirName)); !os.IsNotExist(err) {
		t.Errorf("the probe directory is left: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("the volume holds %d entries after the probes stopped", len(entries))
	}
}

// A probe skips its turn while the device is busy with other work.
func TestDiskProberSkipsBusyDevice(t *testing.T) {
	var busy atomic.Bool
	busy.Store(true)
	p, rec, c := newTestProber(t, t.TempDir(), busy.Load)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	testenv.WaitFor(t, "skipped turns", 10*time.Second, func() bool { return c.diskProbesSkipped.Load() >= 5 })
	if n := c.diskProbes.Load(); n != 0 {
		t.Fatalf("%d probes on a busy device", n)
	}
	busy.Store(false)
	testenv.WaitFor(t, "probes once the device is idle", 10*time.Second, func() bool { return c.diskProbes.Load() >= 3 })
	if s := rec.SnapshotAt(time.Now())[0]; s.Ops[disk.Metadata].Samples == 0 {
		t.Errorf("no metadata probe recorded: %+v", s.Ops)
	}
}

// A volume the probes cannot set up on (here a directory that became a
// file) is left to the other sources: run returns at once.
func TestDiskProberCannotSetUp(t *testing.T) {
	vol := filepath.Join(t.TempDir(), "vol")
	if err := os.WriteFile(vol, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, _, c := newTestProber(t, vol, nil)
	p.run(context.Background())
	if c.diskProbes.Load() != 0 {
		t.Error("probes ran")
	}
}

func TestAlignedBlock(t *testing.T) {
	for range 20 {
		b := alignedBlock()
		if len(b) != probeBlockBytes || cap(b) != probeBlockBytes {
			t.Fatalf("len %d cap %d", len(b), cap(b))
		}
	}
}
