package datanode

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/disklab"
	"github.com/slowpeer/slowpeer/diskstat"
	"github.com/slowpeer/slowpeer/reports"
)

var (
	diskProbeCost  = flag.Duration("disk-probe-cost", 0, "run TestDiskProbeCost for this long (0 skips it)")
	diskDetectRuns = flag.Int("disk-detect-runs", 0, "run TestDiskDetectDefaults this many times (0 skips it)")
)

// TestDiskProbeCost measures what the disk probes cost at the defaults
// (an operation a second per volume at most, 1 ms of disk time a second):
// five idle volumes of a disk lab probed for a while, and the devices'
// busy time (io_ticks) and operations over that time. It is a
// measurement, not a check; run it as root with
//
//	go test -run TestDiskProbeCost -v ./datanode -disk-probe-cost=2m
func TestDiskProbeCost(t *testing.T) {
	if *diskProbeCost <= 0 {
		t.Skip("a measurement: run with -disk-probe-cost DURATION")
	}
	_, vols := newDiskLab(t, 5, false)
	cfg := DefaultConfig()
	for _, v := range vols {
		cfg.Volumes = append(cfg.Volumes, disk.Volume{Path: v.Dir})
	}
	c := &counters{}
	d, err := newDisks(cfg, nil, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	devs := make([]diskstat.Device, len(vols))
	for i, v := range vols {
		devs[i] = v.Device
	}
	type sample struct {
		counters []diskstat.Counters
		probes   int64
	}
	read := func() sample {
		var r diskstat.Reader
		defer r.Close()
		out, found := make([]diskstat.Counters, len(devs)), make([]bool, len(devs))
		if err := r.Read(devs, out, found); err != nil || slices.Contains(found, false) {
			t.Fatalf("read the counters: %v %v", err, found)
		}
		return sample{out, c.diskProbes.Load() + c.diskProbesSkipped.Load()}
	}
	// The warm-up makes the probes' files.
	before, after, wall, cpu := measure(t, 5*time.Second, *diskProbeCost, read, d.Run)
	probes := after.probes - before.probes
	t.Logf("%d idle volumes probed for %v at the defaults: %.3f probe operations a second per volume, CPU %.4f %% of a core",
		len(vols), wall.Round(time.Second), float64(probes)/wall.Seconds()/float64(len(vols)), 100*cpu.Seconds()/wall.Seconds())
	for i := range vols {
		s, _ := diskstat.Delta(before.counters[i], after.counters[i], wall)
		t.Logf("volume %d: busy %v (%.4f %% of the time), %d requests", i, s.Busy, 100*s.Busy.Seconds()/wall.Seconds(), s.Reads+s.Writes)
	}
}

// TestDiskDetectDefaults measures how long after a volume turns slow an
// agent at the production defaults (reports every 5 minutes, 3-minute
// windows, probes at 1 ms a second) reports it: five volumes with a
// DataNode's load (a 64 KiB synced write every 100 ms each), all nested,
// one throttled to 5 requests a second at a random moment after the
// first disk report; a dd keeps another busy all along, which must never
// be reported. A measurement, not a check; as root:
//
//	go test -run TestDiskDetectDefaults -v -timeout 2h ./datanode -disk-detect-runs=3
func TestDiskDetectDefaults(t *testing.T) {
	if *diskDetectRuns <= 0 {
		t.Skip("a measurement: run with -disk-detect-runs N")
	}
	for run := range *diskDetectRuns {
		t.Run("run", func(t *testing.T) { detectDefaults(t, run) })
	}
}

// detectDefaults is one run of TestDiskDetectDefaults.
func detectDefaults(t *testing.T, run int) {
	{
		lab, vols := newDiskLab(t, 5, true)
		svc := newFakeService(t, false)
		cfg := DefaultConfig()
		cfg.ID, cfg.NameNodes, cfg.PeerStatsEnabled = "127.0.0.1:9866", []string{svc.srv.URL}, false
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		for _, v := range vols {
			cfg.Volumes = append(cfg.Volumes, disk.Volume{Path: v.Dir})
		}
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stop := startAgent(t, a)
		workload(t, vols, 100*time.Millisecond)
		ddBusy(t, vols[0].Dir)
		report := func(i int) (reports.Heartbeat, bool) {
			hbs := svc.Beats()
			if i < len(hbs) {
				return hbs[i], true
			}
			return reports.Heartbeat{}, false
		}
		// Wait for the first disk report, then a random part of an
		// interval, then throttle.
		seen := 0
		next := func() reports.Heartbeat {
			for {
				if hb, ok := report(seen); ok {
					seen++
					if hb.HasDiskReport() {
						return hb
					}
					continue
				}
				time.Sleep(time.Second)
			}
		}
		first := next()
		if len(first.SlowDisks) > 0 {
			t.Errorf("run %d: the first report names %v before any fault", run, first.SlowDisks)
		}
		<-time.After(time.Duration(rand.Int64N(int64(cfg.ReportInterval))))
		if err := lab.Throttle(vols[3].Outer.Device, disklab.Throttle{ReadIOPS: 5, WriteIOPS: 5}); err != nil {
			t.Fatal(err)
		}
		fault := time.Now()
		for {
			hb := next()
			names := slowDiskNames(hb.SlowDisks)
			for _, n := range names {
				if n != vols[3].Dir {
					t.Errorf("run %d: %s reported slow: %+v", run, n, hb.SlowDisks)
				}
			}
			if slices.Contains(names, vols[3].Dir) {
				t.Logf("run %d: found %v after the fault (%.2f report intervals): %+v", run, time.Since(fault).Round(time.Second),
					time.Since(fault).Seconds()/cfg.ReportInterval.Seconds(), hb.SlowDisks)
				break
			}
			if time.Since(fault) > 3*cfg.ReportInterval {
				t.Errorf("run %d: not found %v after the fault", run, time.Since(fault))
				break
			}
		}
		stop()
	}
}

// ddBusy keeps dir busy with a dd, 32 MiB written and synced a second,
// until the test ends.
func ddBusy(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cmd := exec.CommandContext(ctx, "dd", "if=/dev/zero", "of="+dir+"/dd", "bs=1M", "count=32", "conv=fsync", "status=none")
			cmd.Run()
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		os.Remove(dir + "/dd")
	}()
}

// BenchmarkDiskKernelStep is one read of the kernel's counters by an
// agent of 12 volumes on 4 devices (this machine's first 4 in
// /proc/diskstats): the read, the deltas, and the latencies and loads
// recorded. At the default interval of a second, the share of a core is
// the time per operation over a second.
func BenchmarkDiskKernelStep(b *testing.B) {
	all, err := diskstat.Parse(mustReadFile(b, diskstat.Path))
	if err != nil || len(all) == 0 {
		b.Skipf("no usable %s: %v", diskstat.Path, err)
	}
	var vols []disk.Volume
	var paths []string
	var devs []diskstat.Device
	for i := range 12 {
		p := "/data/" + strconv.Itoa(i)
		vols, paths, devs = append(vols, disk.Volume{Path: p}), append(paths, p), append(devs, all[i%min(4, len(all))].Device)
	}
	rec, err := disk.NewRecorder(time.Minute, 3, vols)
	if err != nil {
		b.Fatal(err)
	}
	k := newDiskKernel(paths, devs, rec, time.Second, &counters{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer k.reader.Close()
	now := time.Now()
	k.step(now)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	n := 0
	for b.Loop() {
		now = now.Add(time.Second)
		k.step(now)
		n++
	}
	// The CPU time, which a loaded machine's wall time overstates; at
	// one step a second, cpu-ns/op / 1e7 is the per cent of a core.
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
}

func mustReadFile(b *testing.B, name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		b.Skip(err)
	}
	return data
}
