package datanode

// The pace of the disk probes: when the next one goes, and which of them
// count.

import (
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/diskstat"
)

// maxProbePause bounds the pause after a very slow operation: a disk that
// takes seconds per operation is probed once a minute, even if that is
// more than its share.
const maxProbePause = time.Minute

// probeCostFactor is what a probe costs the disk, in multiples of the time
// it took: its operation, then the journal commit and the write-back it
// leaves behind (a removed file, an updated time). Measured on idle loop
// devices over ext4: the devices were busy 1.3 to 1.8 times the probes'
// own time (BENCHMARKS.md).
const probeCostFactor = 2

// probePause returns the pause after an operation that took elapsed: at
// least interval, and probeCostFactor × elapsed / share so that probes
// hold the disk for at most that share of the time, at most
// maxProbePause.
func probePause(elapsed, interval time.Duration, share float64) time.Duration {
	p := interval
	if share > 0 {
		if budget := time.Duration(probeCostFactor * float64(elapsed) / share); budget > p {
			p = budget
		}
	}
	return min(max(p, interval), max(interval, maxProbePause))
}

// recentLatencies are the last few latencies of one probe operation.
type recentLatencies struct {
	d [probeRecent]time.Duration
	n int // how many were recorded, ever
}

// probeRecent is how many latencies of an operation clip the next one.
const probeRecent = 5

// clip records d and returns it, or 3 × the median of the operation's
// last probeRecent latencies (d among them) when d is above that: one
// operation that waited alone (a journal commit of the whole file
// system, a neighbour's burst on a shared device) must not move a mean
// over a few dozen probes, while a disk that turned slow is slow in every
// probe and raises the median within three of them. Package datanode's
// probe pipelines clip packets the same way.
func (r *recentLatencies) clip(d time.Duration) time.Duration {
	r.d[r.n%probeRecent] = d
	r.n++
	if r.n < 3 {
		return d
	}
	k := min(r.n, probeRecent)
	var s [probeRecent]time.Duration
	copy(s[:], r.d[:k])
	slices.Sort(s[:k])
	med := s[k/2]
	if k%2 == 0 {
		med = (s[k/2-1] + s[k/2]) / 2
	}
	return min(d, 3*med)
}

// probeOwnIOs bounds the requests a probe operation makes itself: one
// read or one write (its flush is counted apart), a journal commit of a
// few blocks for a new file.
var probeOwnIOs = [disk.NumOps]uint64{disk.Metadata: 8, disk.Read: 1, disk.Write: 2}

// othersWorked reports whether the device completed more requests between
// before and after than a probe of op makes itself.
func othersWorked(before, after diskstat.Counters, op disk.Op) bool {
	done := (after.Reads + after.Writes) - (before.Reads + before.Writes)
	return after.Reads+after.Writes < before.Reads+before.Writes || done > probeOwnIOs[op]
}
