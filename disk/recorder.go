package disk

import (
	"errors"
	"fmt"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/rolling"
)

// Volume is one volume of a DataNode (an entry of dfs.datanode.data.dir).
type Volume struct {
	// Path is the volume's base path, its name in slow-disk reports.
	Path string
	// StorageType is the volume's Hadoop StorageType ("DISK", "SSD",
	// "ARCHIVE", ... as the "[SSD]/data/1" prefix of dfs.datanode.data.dir
	// gives it), "" for DISK, Hadoop's default. Hadoop's test compares a
	// volume with the node's volumes of the same StorageType only.
	StorageType string
	// Kind is the kind of device under the volume ("hdd", "ssd", "nvme",
	// or finer), "" when unknown. The service's fleet view compares a
	// volume with volumes of the same kind on other nodes.
	Kind string
}

// Recorder keeps a node's volumes' latencies per operation, and the load
// of the devices under them, over rolling windows.
//
// Recorder is safe for concurrent use; its zero value is not usable:
// construct it with NewRecorder. Samples of a volume it does not know are
// dropped.
type Recorder struct {
	volumes []Volume
	index   map[string]int // read-only after NewRecorder

	ops [NumOps]*rolling.Averages // latency in ms, keyed by volume path

	// The load: per volume, a sum over a count of microseconds of span,
	// so that a rolling mean is a rate per microsecond.
	ios, bytes, busy *rolling.Averages
}

// NewRecorder returns a Recorder of volumes over windows windows of
// length window each (a latency counts until windows × window after the
// start of its window; package rolling). It returns an error when a
// volume has a bad name (reports.ValidateDisk) or kind, or is named
// twice; it panics, as rolling.New does, when window is not positive or
// windows is less than one.
func NewRecorder(window time.Duration, windows int, volumes []Volume) (*Recorder, error) {
	r := &Recorder{volumes: append([]Volume(nil), volumes...), index: make(map[string]int, len(volumes))}
	if len(volumes) > reports.MaxDisks {
		return nil, fmt.Errorf("new disk recorder: %d volumes, at most %d allowed", len(volumes), reports.MaxDisks)
	}
	for i, v := range volumes {
		if err := reports.ValidateDisk(v.Path); err != nil {
			return nil, fmt.Errorf("new disk recorder: volume %d: %w", i, err)
		}
		if err := reports.ValidateDiskKind(v.Kind); err != nil {
			return nil, fmt.Errorf("new disk recorder: volume %q: kind: %w", reports.Clip(v.Path), err)
		}
		if _, dup := r.index[v.Path]; dup {
			return nil, fmt.Errorf("new disk recorder: volume %q named twice", reports.Clip(v.Path))
		}
		r.index[v.Path] = i
	}
	for i := range r.ops {
		r.ops[i] = rolling.New(window, windows)
	}
	r.ios, r.bytes, r.busy = rolling.New(window, windows), rolling.New(window, windows), rolling.New(window, windows)
	return r, nil
}

// Volumes returns the recorder's volumes, in the order NewRecorder was
// given them, in a new slice.
func (r *Recorder) Volumes() []Volume { return append([]Volume(nil), r.volumes...) }

// AddAt records one operation op on volume that took latency, at now. It
// reports whether it recorded it: not for an unknown volume or operation,
// nor a negative latency.
func (r *Recorder) AddAt(now time.Time, volume string, op Op, latency time.Duration) bool {
	return r.AddManyAt(now, volume, op, latency, 1)
}

// AddManyAt records count operations op on volume that took total between
// them, at now, as count calls of AddAt would: the growth of the kernel's
// counters between two reads (operations completed, milliseconds spent).
// It reports whether it recorded them: not for an unknown volume or
// operation, a count below one, or a negative total.
func (r *Recorder) AddManyAt(now time.Time, volume string, op Op, total time.Duration, count int64) bool {
	if _, ok := r.index[volume]; !ok || !op.valid() || count < 1 || total < 0 {
		return false
	}
	r.ops[op].AddBatchAt(now, volume, durationMs(total), count)
	return true
}

// ErrBadLoad is returned by AddLoadAt for a load that cannot be: a
// negative figure, a span of less than a microsecond, or a device busy
// for longer than the span.
var ErrBadLoad = errors.New("bad load")

// AddLoadAt records the work the device under volume did over span ending
// at now: ios operations completed, bytes read and written, and busy, the
// time it had I/O in flight (the growth of /proc/diskstats' io_ticks). A
// busy of up to a millisecond more than span, the kernel's counting in
// whole milliseconds, is taken as span. It returns ErrBadLoad, wrapped,
// for a load that cannot be, and recording nothing for an unknown volume
// is not an error.
func (r *Recorder) AddLoadAt(now time.Time, volume string, span time.Duration, ios, bytes int64, busy time.Duration) error {
	if span < time.Microsecond || ios < 0 || bytes < 0 || busy < 0 || busy > span+time.Millisecond {
		return fmt.Errorf("add load of %q: %w: span %v, %d ios, %d bytes, busy %v", reports.Clip(volume), ErrBadLoad, span, ios, bytes, busy)
	}
	if _, ok := r.index[volume]; !ok {
		return nil
	}
	us := int64(span / time.Microsecond)
	r.ios.AddBatchAt(now, volume, float64(ios), us)
	r.bytes.AddBatchAt(now, volume, float64(bytes), us)
	r.busy.AddBatchAt(now, volume, float64(min(busy, span))/float64(time.Microsecond), us)
	return nil
}

// durationMs is d in milliseconds.
func durationMs(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
