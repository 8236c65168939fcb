package datanode

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
)

// diskstatsLine writes one line of /proc/diskstats.
func diskstatsLine(major, minor int, name string, reads, readSectors, readMs, writes, writeSectors, writeMs, busyMs uint64) string {
	return fmt.Sprintf("%4d %7d %s %d 0 %d %d %d 0 %d %d 0 %d %d 0 0 0 0\n",
		major, minor, name, reads, readSectors, readMs, writes, writeSectors, writeMs, busyMs, readMs+writeMs)
}

// Two volumes on one device and one on another; the kernel's counters of
// each device become the volumes' reads, writes and load.
func TestDiskKernelStep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "diskstats")
	write := func(doc string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vols := []disk.Volume{{Path: "/data/1"}, {Path: "/data/2"}, {Path: "/data/3"}, {Path: "/tmpfs"}}
	rec, err := disk.NewRecorder(time.Minute, 3, vols)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	sda, sdb, gone := diskstat.Device{Major: 8, Minor: 0}, diskstat.Device{Major: 8, Minor: 16}, diskstat.Device{Major: 9, Minor: 1}
	k := newDiskKernel([]string{"/data/1", "/data/2", "/data/3", "/tmpfs"}, []diskstat.Device{sda, sda, sdb, {}}, rec, time.Second, &counters{}, log)
	k.reader.File = file
	// /data/3's device is replaced by one the kernel does not list.
	k.devs[2], k.uniq = gone, []diskstat.Device{sda, gone}

	t0 := time.Unix(1_700_000_000, 0)
	write(diskstatsLine(8, 0, "sda", 100, 800, 100, 50, 400, 200, 1000))
	k.step(t0)
	// In 2 s: 10 reads of 30 ms, 40 writes of 2 s, busy the whole time;
	// about one request in flight, so the service time is the response
	// time.
	write(diskstatsLine(8, 0, "sda", 110, 880, 130, 90, 720, 2200, 3000))
	k.step(t0.Add(2 * time.Second))
	stats := rec.SnapshotAt(t0.Add(2 * time.Second))
	for _, s := range stats[:2] {
		if r, w := s.Ops[disk.Read], s.Ops[disk.Write]; r.Samples != 10 || w.Samples != 40 ||
			r.MeanMs < 2.9 || r.MeanMs > 3 || w.MeanMs < 49 || w.MeanMs > 50 {
			t.Errorf("%s: read %+v write %+v; want 10 reads of ~3 ms, 40 writes of ~50 ms", s.Path, r, w)
		}
		if s.Load == nil || s.Load.IOPS != 25 || s.Load.BytesPerSecond != 400*512/2 || s.Load.Utilization != 1 {
			t.Errorf("%s: load %+v", s.Path, s.Load)
		}
	}
	for _, s := range stats[2:] {
		if s.Ops[disk.Read].Samples+s.Ops[disk.Write].Samples != 0 || s.Load != nil {
			t.Errorf("%s has kernel figures: %+v", s.Path, s)
		}
	}
	k.step(t0.Add(3 * time.Second))
	if n := strings.Count(logs.String(), "lists no counters"); n != 1 {
		t.Errorf("the missing device was logged %d times, want once:\n%s", n, logs.String())
	}

	// A document that cannot be read is logged once, and the next good
	// one starts the deltas afresh.
	write("not diskstats\n")
	k.step(t0.Add(4 * time.Second))
	k.step(t0.Add(5 * time.Second))
	if n := strings.Count(logs.String(), "cannot be read"); n != 1 {
		t.Errorf("the unreadable document was logged %d times, want once", n)
	}
	write(diskstatsLine(8, 0, "sda", 1110, 880, 130, 90, 720, 2200, 3000))
	k.step(t0.Add(6 * time.Second))
	if got := rec.SnapshotAt(t0.Add(6 * time.Second))[0].Ops[disk.Read].Samples; got != 10 {
		t.Errorf("reads after the gap: %d samples, want the 10 from before (no delta across the gap)", got)
	}
	if !strings.Contains(logs.String(), "can be read again") {
		t.Error("the recovery was not logged")
	}
}
