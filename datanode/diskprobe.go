package datanode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
)

// ProbeDirName is the hidden directory an agent's disk probes keep their
// files in, in every volume; it is removed when the agent stops.
const ProbeDirName = ".slowpeer-probe"

// Sizes of the disk probes' I/O.
const (
	probeBlockBytes = 4096    // one read or write: a page, aligned as O_DIRECT wants on every device
	probeFileBytes  = 1 << 20 // the file the reads and writes land in, at random blocks
)

// diskProber probes one volume: one small operation at a time, taking
// turns among a metadata operation (a file created and synced, then
// removed), a read that bypasses the page cache and a synced write, each
// timed and recorded in rec. Between two operations it pauses
// probePause: at least interval, and long enough that the operations take
// no more than share of the disk's time.
type diskProber struct {
	volume   string
	rec      *disk.Recorder
	interval time.Duration
	share    float64
	// dev is the device under the volume, the zero Device for none. A
	// probe looks at its counters just before and after it runs: with
	// other I/O in flight at the start, or more completed meanwhile than
	// the probe itself makes, the device is busy with other work, the
	// probe would time the queue rather than the disk, and it is not
	// recorded; the kernel's counters measure the device then (measured:
	// probes behind a dd writing 150–800 MB/s waited 30–140 ms on a device
	// whose own service time stayed 0.5–2 ms).
	dev      diskstat.Device
	sysfs    string // the root of sysfs, "" for /sys
	counters *counters
	log      *slog.Logger
	rng      *rand.Rand

	dir      string
	data     *os.File // the probe file, opened for direct reads
	sync     *os.File // the same, for direct synced writes
	direct   bool     // O_DIRECT works here; otherwise reads drop the page cache first
	buf      []byte   // probeBlockBytes, page-aligned
	next     disk.Op
	metadata int // files made, for names
	recent   [disk.NumOps]recentLatencies
	stat     [256]byte // scratch for look
}

// run probes until ctx is done, then removes its files. A volume it cannot
// set up (read-only, full, not permitted) is logged and left to the other
// sources.
func (p *diskProber) run(ctx context.Context) {
	if err := p.open(); err != nil {
		p.log.Warn("disk probes cannot run on this volume; it is measured by the kernel's counters alone",
			slog.String("volume", p.volume), slog.Any("err", err))
		p.close()
		return
	}
	defer p.close()
	// Start at a random point of the first interval, so that the volumes
	// of a node, and the nodes, do not probe in step.
	t := time.NewTimer(time.Duration(p.rng.Int64N(int64(p.interval))))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		t.Reset(p.turn())
	}
}

// turn takes one turn: a probe, unless the device is busy, and returns the
// pause until the next.
func (p *diskProber) turn() time.Duration {
	before, watched := p.look()
	if watched && before.InFlight > 0 {
		p.counters.diskProbesSkipped.Add(1)
		return p.interval
	}
	op := p.next
	p.next = (p.next + 1) % disk.NumOps
	elapsed, err := p.probe(op)
	if err != nil {
		p.counters.diskProbeErrors.Add(1)
		p.log.Warn("disk probe failed", slog.String("volume", p.volume), slog.String("op", op.String()), slog.Any("err", err))
		return p.interval
	}
	pause := probePause(elapsed, p.interval, p.share)
	if after, ok := p.look(); watched && ok && othersWorked(before, after, op) {
		p.counters.diskProbesSkipped.Add(1)
		return pause
	}
	p.rec.AddAt(time.Now(), p.volume, op, p.recent[op].clip(elapsed))
	p.counters.diskProbes.Add(1)
	return pause
}

// look reads the counters of the volume's device, when it has one.
func (p *diskProber) look() (diskstat.Counters, bool) {
	if p.dev == (diskstat.Device{}) {
		return diskstat.Counters{}, false
	}
	c, err := diskstat.ReadDevice(p.sysfs, p.dev, p.stat[:])
	return c, err == nil
}

// open makes the probe directory and file, written whole and synced so
// that later writes overwrite allocated blocks.
func (p *diskProber) open() error {
	p.dir = filepath.Join(p.volume, ProbeDirName)
	if err := os.RemoveAll(p.dir); err != nil { // left by an agent that crashed
		return err
	}
	if err := os.Mkdir(p.dir, 0o700); err != nil {
		return err
	}
	name := filepath.Join(p.dir, "data")
	if err := os.WriteFile(name, make([]byte, probeFileBytes), 0o600); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return err
	}
	p.buf = alignedBlock()
	p.direct = true
	p.data, err = os.OpenFile(name, os.O_RDONLY|unix.O_DIRECT, 0)
	if errors.Is(err, unix.EINVAL) { // tmpfs, some FUSE file systems
		p.direct = false
		p.data, err = os.OpenFile(name, os.O_RDONLY, 0)
	}
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | unix.O_DSYNC
	if p.direct {
		flags |= unix.O_DIRECT
	}
	p.sync, err = os.OpenFile(name, flags, 0)
	return err
}

// close closes the files and removes the probe directory.
func (p *diskProber) close() {
	for _, f := range []*os.File{p.data, p.sync} {
		if f != nil {
			f.Close()
		}
	}
	if p.dir != "" {
		if err := os.RemoveAll(p.dir); err != nil {
			p.log.Warn("remove the disk probes' files", slog.String("dir", p.dir), slog.Any("err", err))
		}
	}
}

// probe does one operation and returns how long it took.
func (p *diskProber) probe(op disk.Op) (time.Duration, error) {
	off := p.rng.Int64N(probeFileBytes/probeBlockBytes) * probeBlockBytes
	switch op {
	case disk.Metadata:
		p.metadata++
		name := filepath.Join(p.dir, "m"+strconv.Itoa(p.metadata))
		start := time.Now()
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, fmt.Errorf("create: %w", err)
		}
		err = f.Sync() // a new inode: the journal commits it
		elapsed := time.Since(start)
		f.Close()
		if rerr := os.Remove(name); err == nil {
			err = rerr
		}
		return elapsed, err
	case disk.Read:
		if !p.direct {
			// Without O_DIRECT, drop the block from the page cache first.
			unix.Fadvise(int(p.data.Fd()), off, probeBlockBytes, unix.FADV_DONTNEED)
		}
		start := time.Now()
		_, err := p.data.ReadAt(p.buf, off)
		return time.Since(start), err
	default:
		p.buf[0]++
		start := time.Now()
		_, err := p.sync.WriteAt(p.buf, off)
		return time.Since(start), err
	}
}

// alignedBlock returns probeBlockBytes of memory aligned to their size,
// as O_DIRECT needs on devices of 4 KiB logical blocks.
func alignedBlock() []byte {
	b := make([]byte, 2*probeBlockBytes)
	off := int(uintptr(unsafe.Pointer(&b[0])) & (probeBlockBytes - 1))
	if off != 0 {
		off = probeBlockBytes - off
	}
	return b[off : off+probeBlockBytes : off+probeBlockBytes]
}
