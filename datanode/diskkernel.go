package datanode

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
)

// diskKernel reads the kernel's counters of the devices under the volumes
// (/proc/diskstats) every interval and records, for every volume, the
// reads and writes its device completed in the interval with their
// service time (diskstat.Sample.ReadService: the response times over the
// mean number of requests in flight, so that a deep queue on a healthy
// device is not taken for slowness), and the device's load: operations,
// bytes and busy time. Several volumes on one device share its figures.
//
// A volume with no block device of its own (tmpfs, overlay, NFS), or
// whose device the counters do not list, is logged once and left to the
// probes. diskKernel's methods belong to one goroutine.
type diskKernel struct {
	volumes  []string
	devs     []diskstat.Device // per volume; the zero Device for none
	rec      *disk.Recorder
	interval time.Duration
	counters *counters
	log      *slog.Logger

	reader  diskstat.Reader
	uniq    []diskstat.Device // the distinct devices to read
	prev    []diskstat.Counters
	cur     []diskstat.Counters
	found   []bool
	had     []bool // prev holds a reading of uniq[i]
	prevAt  time.Time
	missing []bool // uniq[i] was logged as missing
	failed  bool   // the last read of the document failed, and was logged
}

// newDiskKernel returns the source of vols, whose devices are devs (the
// zero Device for a volume without one).
func newDiskKernel(vols []string, devs []diskstat.Device, rec *disk.Recorder, interval time.Duration, c *counters, log *slog.Logger) *diskKernel {
	k := &diskKernel{volumes: vols, devs: devs, rec: rec, interval: interval, counters: c, log: log}
	for _, d := range devs {
		if d != (diskstat.Device{}) && !slices.Contains(k.uniq, d) {
			k.uniq = append(k.uniq, d)
		}
	}
	n := len(k.uniq)
	k.prev, k.cur = make([]diskstat.Counters, n), make([]diskstat.Counters, n)
	k.found, k.had, k.missing = make([]bool, n), make([]bool, n), make([]bool, n)
	return k
}

// run reads the counters at once and then every interval until ctx is
// done.
func (k *diskKernel) run(ctx context.Context) {
	if len(k.uniq) == 0 {
		return
	}
	defer k.reader.Close()
	t := time.NewTicker(k.interval)
	defer t.Stop()
	k.step(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			k.step(now)
		}
	}
}

// step reads the counters at now and records what each device did since
// the reading before.
func (k *diskKernel) step(now time.Time) {
	if err := k.reader.Read(k.uniq, k.cur, k.found); err != nil {
		if !k.failed {
			k.failed = true
			k.log.Warn("the kernel's disk counters cannot be read; volumes are measured by probes alone until they can (logged once)",
				slog.Any("err", err))
		}
		clear(k.had)
		return
	}
	if k.failed {
		k.failed = false
		k.log.Info("the kernel's disk counters can be read again")
	}
	k.counters.diskStatsReads.Add(1)
	interval := now.Sub(k.prevAt)
	for i, d := range k.uniq {
		if !k.found[i] {
			if !k.missing[i] {
				k.missing[i] = true
				k.log.Warn("the kernel lists no counters of this device; its volumes are measured by probes alone (logged once)",
					slog.String("device", d.String()), slog.Any("volumes", k.volumesOn(d)))
			}
			k.had[i] = false
			continue
		}
		s, ok := diskstat.Delta(k.prev[i], k.cur[i], interval)
		if k.had[i] && ok {
			k.record(now, d, s)
		}
		k.prev[i], k.had[i] = k.cur[i], true
	}
	k.prevAt = now
}

// record adds one interval of device d to every volume on it.
func (k *diskKernel) record(now time.Time, d diskstat.Device, s diskstat.Sample) {
	for j, v := range k.volumes {
		if k.devs[j] != d {
			continue
		}
		if s.Reads > 0 {
			k.rec.AddManyAt(now, v, disk.Read, s.ReadService(), int64(s.Reads))
		}
		if s.Writes > 0 {
			k.rec.AddManyAt(now, v, disk.Write, s.WriteService(), int64(s.Writes))
		}
		busy := min(s.Busy, s.Interval)
		if err := k.rec.AddLoadAt(now, v, s.Interval, int64(s.Reads+s.Writes), int64(s.ReadBytes+s.WriteBytes), busy); err != nil {
			k.log.Debug("disk load not recorded", slog.Any("err", err))
		}
	}
}

func (k *diskKernel) volumesOn(d diskstat.Device) []string {
	var out []string
	for i, v := range k.volumes {
		if k.devs[i] == d {
			out = append(out, v)
		}
	}
	return out
}
