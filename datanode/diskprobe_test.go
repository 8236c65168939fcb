package datanode

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
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
	// A disk's 8 ms seek, twice over for what it leaves behind: 16 s, to
	// stay at 0.1 %.
	f(8*time.Millisecond, time.Second, 0.001, 16*time.Second)
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

func newTestProber(t *testing.T, dir string) (*diskProber, *disk.Recorder, *counters) {
	t.Helper()
	rec, err := disk.NewRecorder(time.Minute, 3, []disk.Volume{{Path: dir}})
	if err != nil {
		t.Fatal(err)
	}
	c := &counters{}
	return &diskProber{volume: dir, rec: rec, interval: 5 * time.Millisecond, share: 1, counters: c,
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
	p, rec, c := newTestProber(t, dir)
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

// A probe skips its turn while the device has other I/O in flight, and
// is not recorded when the device completed more than the probe's own
// requests while it ran.
func TestDiskProberSkipsBusyDevice(t *testing.T) {
	sys := t.TempDir()
	dev := diskstat.Device{Major: 7, Minor: 9}
	statDir := filepath.Join(sys, "dev", "block", dev.String())
	if err := os.MkdirAll(statDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := func(ios, inFlight int) {
		line := fmt.Sprintf("%d 0 0 0 %d 0 0 0 %d 0 0\n", ios, ios, inFlight)
		if err := os.WriteFile(filepath.Join(statDir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, rec, c := newTestProber(t, t.TempDir())
	p.dev, p.sysfs = dev, sys
	if err := p.open(); err != nil {
		t.Fatal(err)
	}
	defer p.close()
	stat(100, 1)
	p.turn()
	if c.diskProbesSkipped.Load() != 1 || c.diskProbes.Load() != 0 || p.next != disk.Metadata {
		t.Fatalf("with I/O in flight: %d skipped, %d probes, next %v", c.diskProbesSkipped.Load(), c.diskProbes.Load(), p.next)
	}
	stat(100, 0)
	p.turn() // no request completed meanwhile (the file holds still): recorded
	if c.diskProbes.Load() != 1 {
		t.Fatalf("an idle device's probe was not recorded")
	}
	// Others' requests completing while the probe runs: read before, then
	// the device jumps by 50 (each side) before the read after.
	p.sysfs = sys
	before, _ := p.look()
	stat(150, 0)
	after, _ := p.look()
	if !othersWorked(before, after, disk.Read) || othersWorked(after, after, disk.Metadata) {
		t.Fatal("othersWorked misjudged")
	}
	if s := rec.SnapshotAt(time.Now())[0]; s.Ops[disk.Metadata].Samples != 1 {
		t.Errorf("recorded %+v", s.Ops)
	}
}

func TestOthersWorked(t *testing.T) {
	c := func(reads, writes uint64) diskstat.Counters { return diskstat.Counters{Reads: reads, Writes: writes} }
	for _, tc := range []struct {
		before, after diskstat.Counters
		op            disk.Op
		want          bool
	}{
		{c(10, 10), c(11, 10), disk.Read, false},
		{c(10, 10), c(12, 10), disk.Read, true},
		{c(10, 10), c(10, 12), disk.Write, false},
		{c(10, 10), c(10, 13), disk.Write, true},
		{c(10, 10), c(10, 18), disk.Metadata, false},
		{c(10, 10), c(11, 18), disk.Metadata, true},
		{c(10, 10), c(0, 0), disk.Read, true}, // counters reset: cannot tell
	} {
		if got := othersWorked(tc.before, tc.after, tc.op); got != tc.want {
			t.Errorf("othersWorked(%+v, %+v, %v) = %v", tc.before, tc.after, tc.op, got)
		}
	}
}

// A volume the probes cannot set up on (here a directory that became a
// file) is left to the other sources: run returns at once.
func TestDiskProberCannotSetUp(t *testing.T) {
	vol := filepath.Join(t.TempDir(), "vol")
	if err := os.WriteFile(vol, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, _, c := newTestProber(t, vol)
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
