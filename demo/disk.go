package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/disklab"
	"github.com/slowpeer/slowpeer/netlab"
)

// The kinds of disk fault: the throttle of the block-I/O controller on
// one volume of the slow node, in requests or in bytes per second.
const (
	kindDiskIOPS = "disk-iops"
	kindDiskRate = "disk-rate"
)

// The slow node's volumes in a disk demo: Hadoop's test needs five.
const (
	volumes     = 5
	slowVolume  = 3         // nested, its outer device throttled
	busyVolume  = 0         // a dd keeps it busy, healthy
	volumeBytes = 256 << 20 // sparse
)

// The load on the slow node's volumes, as a DataNode's writers would put
// it: a synced block of loadBytes on each volume every loadEvery,
// and a dd of ddBytes written and synced every second on the busy one.
const (
	loadBytes = 64 << 10
	loadEvery = 100 * time.Millisecond
	ddBytes   = 32 << 20
)

// parseDiskFault reads the VALUE of disk-iops=N (requests per second) or
// disk-rate=RATE (as tc writes rates: 2mbit, 250kbps). 0 throttles
// nothing: the volumes and their load run healthy.
func parseDiskFault(kind, value, spec string) (Fault, error) {
	f := Fault{kind: kind, disk: kind}
	if value == "0" {
		return f, nil
	}
	if kind == kindDiskIOPS {
		n, err := strconv.ParseUint(value, 10, 32)
		if err != nil || n == 0 {
			return Fault{}, fmt.Errorf("-fault %s: want a whole number of requests per second, e.g. disk-iops=5", spec)
		}
		f.diskIOPS = n
		return f, nil
	}
	bps, err := netlab.ParseRate(value)
	if err != nil || bps < 8 {
		return Fault{}, fmt.Errorf("-fault %s: want a rate as tc writes it, e.g. disk-rate=2mbit", spec)
	}
	f.diskBytes = bps / 8
	return f, nil
}

// diskString writes a disk fault as the flag spells it.
func (f Fault) diskString() string {
	switch {
	case f.diskIOPS > 0:
		return kindDiskIOPS + "=" + strconv.FormatUint(f.diskIOPS, 10)
	case f.diskBytes > 0:
		return kindDiskRate + "=" + netlab.FormatRate(f.diskBytes*8)
	}
	return f.disk + "=0"
}

// throttle is the block-I/O throttle of a disk fault.
func (f Fault) throttle() disklab.Throttle {
	return disklab.Throttle{ReadIOPS: f.diskIOPS, WriteIOPS: f.diskIOPS,
		ReadBytesPerSecond: f.diskBytes, WriteBytesPerSecond: f.diskBytes}
}

// disks is the disk lab of a disk demo: the slow node's volumes on
// loop devices, the slow one throttled in the kernel, and their load.
type disks struct {
	lab  *disklab.Lab
	vols []*disklab.Volume
	slow string // the throttled volume's directory, "" when none is
}

// newDisks builds the volumes, joins the lab's cgroup and throttles
// the slow volume's outer device. Labs a crashed earlier run left are
// removed first; on error everything made is removed.
func newDisks(ctx context.Context, f Fault, stderr io.Writer) (_ *disks, err error) {
	if err := disklab.Check(); err != nil {
		return nil, fmt.Errorf("demo -fault %s: %w", f.diskString(), err)
	}
	// What a crashed run left goes first; a loop device still busy
	// (a dd of that run finishing) is marked to go once free, which is
	// no reason not to run.
	if _, err := disklab.CleanStale(); err != nil {
		fmt.Fprintf(stderr, "demo: the disk labs of an earlier run are not all gone yet: %v\n", err)
	}
	lab, err := disklab.New()
	if err != nil {
		return nil, fmt.Errorf("demo -fault %s: %w", f.diskString(), err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, lab.Close())
		}
	}()
	d := &disks{lab: lab}
	for range volumes {
		// Nested, every one alike: the slow one's own device waits for
		// its throttled outer one, so that the kernel's counters see the
		// fault as well as the probes; a volume over two file systems
		// takes longer for every synced operation than one over one.
		v, err := lab.Nested(ctx, volumeBytes)
		if err != nil {
			return nil, err
		}
		d.vols = append(d.vols, v)
	}
	if err := lab.Join(); err != nil {
		return nil, err
	}
	if t := f.throttle(); t != (disklab.Throttle{}) {
		if err := lab.Throttle(d.vols[slowVolume].Outer.Device, t); err != nil {
			return nil, err
		}
		d.slow = d.vols[slowVolume].Dir
	}
	return d, nil
}

// volumes are the slow node's volumes as its agent measures them.
func (d *disks) volumes() []disk.Volume {
	out := make([]disk.Volume, len(d.vols))
	for i, v := range d.vols {
		out[i] = disk.Volume{Path: v.Dir}
	}
	return out
}

// describe says in words what the fault does.
func (d *disks) describe(f Fault) string {
	busy := fmt.Sprintf("a dd writes %d MiB a second to %s", ddBytes>>20, d.vols[busyVolume].Dir)
	if d.slow == "" {
		return "no volume throttled; " + busy
	}
	what := fmt.Sprintf("%d requests a second", f.diskIOPS)
	if f.diskBytes > 0 {
		what = netlab.FormatRate(f.diskBytes*8) + " (" + strconv.FormatUint(f.diskBytes, 10) + " bytes a second)"
	}
	return fmt.Sprintf("volume %s throttled to %s (blkio, under its loop device); %s", d.slow, what, busy)
}

// load puts the load on the volumes until ctx ends: the writers, and the
// dd on the busy volume. It returns nil then; a writer that cannot start
// is an error.
func (d *disks) load(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, v := range d.vols {
		f, err := os.OpenFile(filepath.Join(v.Dir, "load"), os.O_CREATE|os.O_WRONLY|unix.O_DIRECT|unix.O_DSYNC, 0o600)
		if err != nil {
			return fmt.Errorf("demo: disk load: %w", err)
		}
		wg.Go(func() {
			defer f.Close()
			buf := alignedBuffer(loadBytes)
			t := time.NewTicker(loadEvery)
			defer t.Stop()
			for i := int64(0); ; i++ {
				f.WriteAt(buf, i%256*loadBytes) // a failed write is the next one's problem
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	dd := filepath.Join(d.vols[busyVolume].Dir, "dd")
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		cmd := exec.CommandContext(ctx, "dd", "if=/dev/zero", "of="+dd, "bs=1M",
			"count="+strconv.Itoa(ddBytes>>20), "conv=fsync", "status=none")
		// Killed with the demo, even by SIGKILL, so that it holds no
		// volume of a lab the next run removes.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cmd.Run() // cut short by ctx at the end
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// alignedBuffer returns n bytes aligned to 4096, as O_DIRECT wants them.
func alignedBuffer(n int) []byte {
	b := make([]byte, n+4096)
	off := (4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)) % 4096
	return b[off : off+n : off+n]
}

// diskAgentConfig gives the slow agent its volumes; it is the slow node
// when one of them is throttled.
func (d *demo) diskAgentConfig(i int, cfg *datanode.Config) {
	if i != d.cfg.Slow {
		return
	}
	cfg.Volumes = d.disks.volumes()
	if d.disks.slow != "" {
		d.slowID = cfg.ID
	}
}
