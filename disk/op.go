package disk

import (
	"strconv"

	"github.com/slowpeer/slowpeer/reports"
)

// Op is a disk operation, as Hadoop's SlowDiskReports.DiskOp.
type Op uint8

// The operations, in Hadoop's DiskOp order.
const (
	// Metadata is a metadata operation on a volume: create, delete,
	// rename, list or stat of a block or meta file.
	Metadata Op = iota
	// Read is a read of block data.
	Read
	// Write is a write of block data. Hadoop's DataNodeVolumeMetrics
	// reports the sync time of a write under it.
	Write
)

// NumOps is the number of operations.
const NumOps = 3

// Ops returns every operation, in order.
func Ops() [NumOps]Op { return [NumOps]Op{Metadata, Read, Write} }

// String returns the operation's name on the wire and in Hadoop's JSON:
// "METADATA", "READ" or "WRITE".
func (o Op) String() string {
	switch o {
	case Metadata:
		return reports.DiskOpMetadata
	case Read:
		return reports.DiskOpRead
	case Write:
		return reports.DiskOpWrite
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// ParseOp returns the operation named s, as String names it.
func ParseOp(s string) (Op, bool) {
	for _, o := range Ops() {
		if o.String() == s {
			return o, true
		}
	}
	return 0, false
}

// valid reports whether o is one of the operations.
func (o Op) valid() bool { return o < NumOps }
