package datanode

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/disklab"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
)

// newDiskLab makes a disk lab for the test, with n volumes, all nested
// (each device waits for an outer one of its own, so that the kernel's
// counters of the volume see a throttle of the outer one) when nested is
// set, and removes everything at the end, also when the test fails.
// Without root the test is skipped, or fails under
// SLOWPEER_REQUIRE_SERVICES=1.
func newDiskLab(t *testing.T, n int, nested bool) (*disklab.Lab, []*disklab.Volume) {
	t.Helper()
	if err := disklab.Check(); err != nil {
		testenv.Missing(t, err.Error())
	}
	if _, err := disklab.CleanStale(); err != nil {
		t.Logf("clean stale disk labs: %v", err)
	}
	l, err := disklab.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close the disk lab: %v", err)
		}
	})
	var vols []*disklab.Volume
	for range n {
		mk := l.Volume
		if nested {
			mk = l.Nested
		}
		v, err := mk(context.Background(), 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		vols = append(vols, v)
	}
	if err := l.Join(); err != nil {
		t.Fatal(err)
	}
	return l, vols
}

// labDisks measures the lab's volumes with seconds-scale settings: probes
// every 50 ms (or none), the counters every 250 ms, 5-second windows, the
// first report after 2 s.
func labDisks(t *testing.T, vols []*disklab.Volume, probes bool) *Disks {
	t.Helper()
	cfg := DefaultConfig()
	for _, v := range vols {
		cfg.Volumes = append(cfg.Volumes, disk.Volume{Path: v.Dir})
	}
	cfg.RollingWindow, cfg.RollingWindows, cfg.ReportInterval = 5*time.Second, 3, 2*time.Second
	cfg.DiskStatsInterval, cfg.DiskProbeInterval, cfg.DiskProbeBudget = 250*time.Millisecond, 0, time.Second
	if probes {
		cfg.DiskProbeInterval = 50 * time.Millisecond
	}
	d, err := newDisks(cfg, http.DefaultClient, &counters{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Start(t, func(ctx context.Context) error { d.Run(ctx); return nil })
	return d
}

// workload writes 4 KiB synced blocks to every volume, one at a time per
// volume, with a pause between them, as a DataNode's writers would, until
// the test ends.
func workload(t *testing.T, vols []*disklab.Volume, pause time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for _, v := range vols {
		f, err := os.OpenFile(filepath.Join(v.Dir, "blk"), os.O_CREATE|os.O_WRONLY|unix.O_DIRECT|unix.O_DSYNC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer f.Close()
			buf := alignedBlock()
			for i := 0; ctx.Err() == nil; i++ {
				f.WriteAt(buf, int64(i%256)*probeBlockBytes)
				time.Sleep(pause)
			}
		})
	}
}

// slowOnly waits until a report names the volume want, slow in op, and
// returns that report's entry. Another volume named is logged: on a
// machine whose one disk other work keeps busy, the healthy volumes' few
// samples of a window differ by chance, and Hadoop's 3 × median can
// catch one.
func slowOnly(t *testing.T, d *Disks, want, op string, within time.Duration) reports.SlowDisk {
	t.Helper()
	var found reports.SlowDisk
	testenv.WaitFor(t, "a report naming "+want+" alone, slow in "+op, within, func() bool {
		slow, measured, _ := d.ReportAt(time.Now())
		ok := false
		for _, s := range slow {
			if s.Disk != want {
				t.Logf("also reported slow: %+v", s)
				continue
			}
			_, ok = s.Latencies[op]
			found = s
		}
		if ok {
			for _, m := range measured {
				t.Logf("%s: %v ms, %v samples", m.Disk, m.Latencies, m.Samples)
			}
		}
		return ok
	})
	return found
}

// The throttle holds requests before the device accounts them; the
// probes, which time their own operations, see it.
func TestDiskProbesSeeThrottledDevice(t *testing.T) {
	lab, vols := newDiskLab(t, 5, false)
	if err := lab.Throttle(vols[2].Device, disklab.Throttle{ReadIOPS: 5, WriteIOPS: 5}); err != nil {
		t.Fatal(err)
	}
	d := labDisks(t, vols, true)
	got := slowOnly(t, d, vols[2].Dir, "READ", 20*time.Second)
	t.Logf("slow: %+v", got)
	// The kernel's counters of the throttled device saw none of it.
	k := d.recs[0].SnapshotAt(time.Now())[2]
	if k.Ops[disk.Read].MeanMs > 20 || k.Ops[disk.Write].MeanMs > 20 {
		t.Errorf("the throttled device's own counters show %+v", k.Ops)
	}
}

// A nested volume's device waits for its throttled outer device; the
// kernel's counters see the DataNode's I/O slow, with no probe running.
func TestDiskCountersSeeNestedThrottle(t *testing.T) {
	lab, vols := newDiskLab(t, 5, true)
	if err := lab.Throttle(vols[3].Outer.Device, disklab.Throttle{ReadIOPS: 5, WriteIOPS: 5}); err != nil {
		t.Fatal(err)
	}
	d := labDisks(t, vols, false)
	workload(t, vols, 50*time.Millisecond)
	got := slowOnly(t, d, vols[3].Dir, "WRITE", 20*time.Second)
	t.Logf("slow: %+v", got)
}

// A volume busy with a dd beside the probes, healthy, is never reported:
// its probes skip their turns while the device is busy, and the kernel's
// service time stays the device's own. (Another volume named is logged,
// as in slowOnly.)
func TestDiskBusyVolumeNotReported(t *testing.T) {
	_, vols := newDiskLab(t, 5, false)
	d := labDisks(t, vols, true)
	for _, args := range [][]string{
		{"bs=1M", "count=200"},                 // buffered: the write-back floods the queue
		{"bs=1M", "count=200", "oflag=direct"}, // direct, one request at a time
	} {
		ctx, cancel := context.WithCancel(context.Background())
		script := "while :; do dd if=/dev/zero of=" + filepath.Join(vols[0].Dir, "dd") + " status=none"
		for _, a := range args {
			script += " " + a
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", script+"; done")
		cmd.WaitDelay = time.Second
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		end := time.Now().Add(5 * time.Second)
		var n int
		for time.Now().Before(end) {
			time.Sleep(250 * time.Millisecond)
			slow, measured, ok := d.ReportAt(time.Now())
			if !ok {
				continue
			}
			n++
			for _, s := range slow {
				if s.Disk == vols[0].Dir {
					t.Errorf("dd %v: the busy volume reported slow: %+v; measured %+v", args, s, measured)
				} else {
					t.Logf("dd %v: another volume reported slow: %+v", args, s)
				}
			}
		}
		cancel()
		cmd.Wait()
		_, measured, _ := d.ReportAt(time.Now())
		i := slices.IndexFunc(measured, func(m reports.DiskLatency) bool { return m.Disk == vols[0].Dir })
		if i < 0 || measured[i].Load == nil || measured[i].Load.BytesPerSecond < 10<<20 {
			t.Fatalf("dd %v: the busy volume's figures %+v: the dd did not run", args, measured)
		}
		t.Logf("dd %v: %d reports; the busy volume %+v, load %+v", args, n, measured[i].Latencies, *measured[i].Load)
	}
}
