package reports

import (
	"errors"
	"fmt"
	"slices"
)

// The disk operations of a slow-disk report, named as Hadoop's
// SlowDiskReports.DiskOp names them: the keys of SlowDisk.Latencies and
// DiskLatency.Latencies.
const (
	// DiskOpMetadata is a metadata operation on a volume (create, delete,
	// rename, list, stat of a block or meta file).
	DiskOpMetadata = "METADATA"
	// DiskOpRead is a read of block data.
	DiskOpRead = "READ"
	// DiskOpWrite is a write of block data (Hadoop times its sync).
	DiskOpWrite = "WRITE"
)

// DiskOps returns the disk operations, in Hadoop's DiskOp order (which is
// also their sorted order), in a new slice.
func DiskOps() []string { return []string{DiskOpMetadata, DiskOpRead, DiskOpWrite} }

// MaxDisks is the largest number of entries of a heartbeat's slowDisks,
// and of its diskLatencies: the volumes of one DataNode. The largest
// storage servers hold about a hundred drives; more is taken as a broken
// or hostile sender.
const MaxDisks = 512

// MaxDiskNameBytes bounds the length of a volume's name (its base path).
const MaxDiskNameBytes = 1024

// MaxDiskKindBytes bounds the length of a device kind.
const MaxDiskKindBytes = 64

// SlowDisk is one volume that a DataNode's outlier test found slow, with
// the average latency in milliseconds of each operation it was slow in,
// as an entry of Hadoop's SlowDiskReports (volume base path → DiskOp →
// latency). Latencies holds only the slow operations, and may be empty
// (Hadoop's DataNode can report a slow disk with no latencies).
type SlowDisk struct {
	// Disk is the volume's name, its base path ("/data/3").
	Disk string `json:"disk"`
	// Latencies maps a DiskOp name to the volume's average latency of
	// that operation, in milliseconds.
	Latencies map[string]float64 `json:"latencies"`
}

// DiskLatency is what a DataNode measured of one of its volumes over its
// rolling windows, sent for the service's fleet view, which compares like
// volumes across nodes (DESIGN.md, "diskLatencies").
type DiskLatency struct {
	// Disk is the volume's name, its base path ("/data/1").
	Disk string `json:"disk"`
	// Kind is the kind of device under the volume ("hdd", "ssd", "nvme",
	// or a finer class such as a drive model), "" when unknown. The
	// service compares a volume with volumes of the same kind only.
	Kind string `json:"kind,omitempty"`
	// Latencies maps a DiskOp name to the volume's average latency of
	// that operation in milliseconds; an operation with no samples is
	// absent.
	Latencies map[string]float64 `json:"latencies"`
	// Samples maps a DiskOp name to the number of operations behind its
	// latency; it has exactly the keys of Latencies.
	Samples map[string]int64 `json:"samples"`
	// Load is how busy the device under the volume was over the same
	// span, from the kernel's counters, or nil when they could not be
	// read.
	Load *DiskLoad `json:"load,omitempty"`
}

// DiskLoad is the work the device under a volume did, from the kernel's
// own counters (/proc/diskstats), averaged over the span of a
// DiskLatency: what a latency is judged against, so that a disk that is
// merely busy is not called slow.
type DiskLoad struct {
	// IOPS is the reads and writes the device completed per second.
	IOPS float64 `json:"iops"`
	// BytesPerSecond is the bytes the device read and wrote per second.
	BytesPerSecond float64 `json:"bytesPerSecond"`
	// Utilization is the share of the span during which the device had
	// I/O in flight (the kernel's io_ticks), from 0 to 1. A sender clamps
	// a figure that its timing put a little above 1.
	Utilization float64 `json:"utilization"`
}

// HasDiskReport reports whether the heartbeat carries a slow-disk report.
// A nil SlowDisks means the field was absent and the sender's earlier
// slow-disk report stands; a non-nil one, even empty, replaces it.
func (h Heartbeat) HasDiskReport() bool { return h.SlowDisks != nil }

// MaxLatencyMs returns the highest latency of d, 0 when it has none: the
// figure Hadoop's SlowDiskTracker ranks slow disks by
// (DiskLatency.getMaxLatency).
func (d SlowDisk) MaxLatencyMs() float64 {
	var m float64
	for _, v := range d.Latencies {
		if v > m {
			m = v
		}
	}
	return m
}

// validateDisks checks the slowDisks and diskLatencies of a heartbeat: at
// most MaxDisks each, every entry valid, no volume named twice in either.
func validateDisks(slow []SlowDisk, measured []DiskLatency) error {
	if len(slow) > MaxDisks {
		return fmt.Errorf("slowDisks: %d entries, at most %d allowed", len(slow), MaxDisks)
	}
	if len(measured) > MaxDisks {
		return fmt.Errorf("diskLatencies: %d entries, at most %d allowed", len(measured), MaxDisks)
	}
	seen := make(map[string]struct{}, max(len(slow), len(measured)))
	for i, d := range slow {
		if err := ValidateDisk(d.Disk); err != nil {
			return fmt.Errorf("slowDisks[%d]: disk: %w", i, err)
		}
		if d.Latencies == nil {
			return fmt.Errorf("slowDisks[%d]: latencies: missing", i)
		}
		if err := validateOpLatencies(d.Latencies); err != nil {
			return fmt.Errorf("slowDisks[%d]: latencies: %w", i, err)
		}
		if _, dup := seen[d.Disk]; dup {
			return fmt.Errorf("slowDisks[%d]: disk %q named twice", i, Clip(d.Disk))
		}
		seen[d.Disk] = struct{}{}
	}
	clear(seen)
	for i, d := range measured {
		if err := d.validate(); err != nil {
			return fmt.Errorf("diskLatencies[%d]: %w", i, err)
		}
		if _, dup := seen[d.Disk]; dup {
			return fmt.Errorf("diskLatencies[%d]: disk %q named twice", i, Clip(d.Disk))
		}
		seen[d.Disk] = struct{}{}
	}
	return nil
}

func (d DiskLatency) validate() error {
	if err := ValidateDisk(d.Disk); err != nil {
		return fmt.Errorf("disk: %w", err)
	}
	if err := ValidateDiskKind(d.Kind); err != nil {
		return fmt.Errorf("kind: %w", err)
	}
	if d.Latencies == nil {
		return errors.New("latencies: missing")
	}
	if err := validateOpLatencies(d.Latencies); err != nil {
		return fmt.Errorf("latencies: %w", err)
	}
	if d.Samples == nil {
		return errors.New("samples: missing")
	}
	if len(d.Samples) != len(d.Latencies) {
		return errors.New("samples: not the operations of latencies")
	}
	for op, n := range d.Samples {
		if _, ok := d.Latencies[op]; !ok {
			return fmt.Errorf("samples: operation %q has no latency", Clip(op))
		}
		if n < 0 {
			return fmt.Errorf("samples: %s: negative count %d", op, n)
		}
	}
	if d.Load != nil {
		if err := d.Load.validate(); err != nil {
			return fmt.Errorf("load: %w", err)
		}
	}
	return nil
}

func (l DiskLoad) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"iops", l.IOPS}, {"bytesPerSecond", l.BytesPerSecond}, {"utilization", l.Utilization}} {
		if err := ValidateLatency(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if l.Utilization > 1 {
		return fmt.Errorf("utilization: %v is above 1", l.Utilization)
	}
	return nil
}

// validateOpLatencies checks that every key of m is a DiskOp and every
// value a finite latency ≥ 0.
func validateOpLatencies(m map[string]float64) error {
	for op, ms := range m {
		if !slices.Contains(DiskOps(), op) {
			return fmt.Errorf("unknown operation %q", Clip(op))
		}
		if err := ValidateLatency(ms); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	return nil
}

// ValidateDisk reports an error unless name is a usable volume name: not
// empty, at most MaxDiskNameBytes bytes, without control characters. It
// need not be an absolute path (Hadoop's tests name volumes "disk1").
func ValidateDisk(name string) error {
	if name == "" {
		return errors.New("missing volume name")
	}
	if len(name) > MaxDiskNameBytes {
		return fmt.Errorf("volume name of %d bytes, at most %d allowed", len(name), MaxDiskNameBytes)
	}
	for _, c := range name {
		if c < ' ' || c == 0x7f {
			return fmt.Errorf("volume name %q has a control character", Clip(name))
		}
	}
	return nil
}

// ValidateDiskKind reports an error unless kind is a usable device kind:
// "" (unknown) or up to MaxDiskKindBytes of printable ASCII other than
// '"' and '\\'.
func ValidateDiskKind(kind string) error {
	if len(kind) > MaxDiskKindBytes {
		return fmt.Errorf("%d bytes, at most %d allowed", len(kind), MaxDiskKindBytes)
	}
	for i := 0; i < len(kind); i++ {
		if c := kind[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return fmt.Errorf("%q is not printable ASCII", Clip(kind))
		}
	}
	return nil
}
