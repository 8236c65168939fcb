package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
)

// The disk scenarios (DESIGN.md, "Command line"). Each runs the disks of
// the cluster only: the network is healthy and not simulated.
const (
	// SlowDisk makes one volume of one node SlowFactor times slower.
	SlowDisk Scenario = "slow-disk"
	// SlowController makes every volume of one node SlowFactor times
	// slower: a failing controller, a RAID rebuild, a throttled host.
	SlowController Scenario = "slow-controller"
	// BusyDisk gives some volumes heavy but healthy work: a sequential
	// writer on one volume of 2 % of the nodes, heavy small I/O on every
	// volume of 1 % of them.
	BusyDisk Scenario = "busy-disk"
)

func init() {
	for _, sc := range []Scenario{SlowDisk, SlowController, BusyDisk} {
		scenarios[sc] = true
	}
}

// isDisk reports whether sc is a disk scenario.
func isDisk(sc Scenario) bool { return sc == SlowDisk || sc == SlowController || sc == BusyDisk }

// The simulated devices. A volume's device takes, per operation, a
// positioning time plus the transfer of the operation's bytes; its
// latency (what the DataNode's timed I/O and the agent's probes see) is
// that service time swollen by the queue, 1/(1 − ρ) at utilization ρ, as
// an M/M/1 queue. The kernel's counters see the operations completed,
// their bytes and response times, and the time the device was busy.
type device struct {
	kind        string  // "hdd" or "ssd"
	storageType string  // Hadoop's: "DISK" or "SSD"
	posMs       float64 // positioning time per operation
	mbPerSec    float64 // transfer rate
	metaMs      float64 // a metadata operation, without queueing
}

var (
	hdd = device{kind: "hdd", storageType: "DISK", posMs: 5, mbPerSec: 150, metaMs: 2}
	ssd = device{kind: "ssd", storageType: "SSD", posMs: 0.08, mbPerSec: 500, metaMs: 0.1}
)

// The workload of a volume, per second, before the daily swing: healthy
// volumes do a few tens of operations of 64 KiB to 256 KiB.
const (
	diskOpsPerSec    = 12.0  // median over volumes
	diskOpsSigma     = 0.5   // log-normal spread of volumes' work
	diskOpBytes      = 128e3 // median operation size
	diskWriteShare   = 0.4   // share of operations that write
	diskMetaPerSec   = 2.0   // metadata operations of the DataNode
	diskProbesPerSec = 1.0   // the agent's probes, all operations together
	diskTickSigma    = 0.2   // a volume's work from one tick to the next
	maxUtilization   = 0.98  // a saturated device: its queue stays long
)

// The busy volumes of busy-disk.
const (
	busyWriterBytes = 1.2e6 // a dd: large sequential writes, no seek
	busyWriterUtil  = 0.99  // that keep the device saturated
	busySmallPerSec = 140.0 // heavy small I/O on every volume of a node
	busySmallBytes  = 64e3
)

// diskVolume is one volume of the simulated cluster.
type diskVolume struct {
	path    string
	dev     device
	speed   float64 // this device's factor on its times (log-normal, σ 0.1)
	opsRate float64 // its median operations per second
	opBytes float64 // its median operation size
	slow    bool    // at fault: SlowFactor times slower once the fault is on
	busy    int     // 0, busyWriter or busySmall
}

const (
	busyWriter = 1 + iota
	busySmall
)

// diskNode is one node's volumes.
type diskNode struct {
	name string
	vols []diskVolume
}

// newDiskCluster lays out the volumes of c's nodes: a third with 12, a
// third with 6, a third with 4 (too few for Hadoop's test); one node in
// ten of SSDs, the rest of HDDs; and draws the fault of sc on HDD
// volumes (a tenfold SSD stays under the low threshold).
func newDiskCluster(c *cluster, sc Scenario, rng *rand.Rand) ([]diskNode, []string) {
	nodes := make([]diskNode, c.n)
	var hddNodes []int
	for i := range c.n {
		dev := hdd
		if rng.IntN(10) == 0 {
			dev = ssd
		} else {
			hddNodes = append(hddNodes, i)
		}
		n := []int{12, 6, 4}[rng.IntN(3)]
		node := math.Exp(0.15 * rng.NormFloat64()) // the node's model and its controller
		nodes[i].name = c.names[i]
		for v := range n {
			nodes[i].vols = append(nodes[i].vols, diskVolume{
				path: fmt.Sprintf("/data/%d", v), dev: dev, speed: node * math.Exp(0.1*rng.NormFloat64()),
				opsRate: diskOpsPerSec * math.Exp(diskOpsSigma*rng.NormFloat64()),
				opBytes: diskOpBytes * math.Exp(0.4*rng.NormFloat64()),
			})
		}
	}
	var truth []string
	pick := hddNodes[rng.IntN(len(hddNodes))]
	switch sc {
	case SlowDisk:
		v := &nodes[pick].vols[rng.IntN(len(nodes[pick].vols))]
		v.slow = true
		truth = append(truth, reports.SlowDiskID(nodes[pick].name, v.path))
	case SlowController:
		for v := range nodes[pick].vols {
			nodes[pick].vols[v].slow = true
			truth = append(truth, reports.SlowDiskID(nodes[pick].name, nodes[pick].vols[v].path))
		}
	case BusyDisk:
		perm := rng.Perm(c.n)
		writers, small := max(1, c.n/50), max(1, c.n/100)
		for _, i := range perm[:writers] {
			nodes[i].vols[rng.IntN(len(nodes[i].vols))].busy = busyWriter
		}
		for _, i := range perm[writers : writers+small] {
			for v := range nodes[i].vols {
				nodes[i].vols[v].busy = busySmall
			}
		}
	}
	slices.Sort(truth)
	return nodes, truth
}

// diskTick is what a volume did in one tick, as its kernel counters,
// the DataNode's timed I/O and the agent's probes see it.
type diskTick struct {
	reads, writes     int64
	readMs, writeMs   float64 // sums of response times
	bytes             int64
	busy              time.Duration
	meta              int64
	metaMs            float64
	probeMs           [disk.NumOps]float64 // sums of the agent's probes
	probes            [disk.NumOps]int64
	dnReadMs, dnWrite float64 // the DataNode's own mean latencies (Hadoop's)
}

// draw returns what v did in a tick of length dt at load factor swing,
// with the fault on or not.
func (v *diskVolume) draw(rng *rand.Rand, dt time.Duration, swing, slowFactor float64, faultOn bool) diskTick {
	sec := dt.Seconds()
	f := v.speed
	if v.slow && faultOn {
		f *= slowFactor
	}
	rate, size := v.opsRate*swing*math.Exp(diskTickSigma*rng.NormFloat64()-diskTickSigma*diskTickSigma/2), v.opBytes
	pos := v.dev.posMs
	switch v.busy {
	case busyWriter:
		size, pos = busyWriterBytes, 0.2*v.dev.posMs
		rate = busyWriterUtil / ((pos + size/1e6/v.dev.mbPerSec*1000) * f / 1000)
	case busySmall:
		rate, size = busySmallPerSec*swing, busySmallBytes
	}
	svcMs := (pos + size/1e6/v.dev.mbPerSec*1000) * f
	rho := rate * svcMs / 1000
	if rho > maxUtilization { // saturated: it completes what it can
		rho = maxUtilization
		rate = rho * 1000 / svcMs
	}
	queue := 1 / (1 - rho)
	var t diskTick
	n := poisson(rng, rate*sec)
	t.writes = int64(float64(n) * diskWriteShare)
	t.reads = int64(n) - t.writes
	t.bytes = int64(float64(n) * size)
	t.busy = min(dt, time.Duration(float64(n)*svcMs*float64(time.Millisecond)))
	// Response times: each the service time times the queue, with
	// log-normal noise (σ 0.5) whose mean over n operations is drawn.
	mean := func(ms float64, k int64) float64 {
		if k == 0 {
			return 0
		}
		const s = 0.5
		return ms * math.Exp(s/math.Sqrt(float64(k))*rng.NormFloat64())
	}
	t.readMs = mean(svcMs*queue, t.reads) * float64(t.reads)
	t.writeMs = mean(svcMs*queue, t.writes) * float64(t.writes)
	t.dnReadMs, t.dnWrite = mean(svcMs*queue, t.reads), mean(svcMs*queue, t.writes)
	metaMs := v.dev.metaMs * f * queue
	t.meta = int64(poisson(rng, diskMetaPerSec*sec))
	t.metaMs = mean(metaMs, t.meta)
	// The agent's probes: a small synced operation of each kind in turn.
	probeSvc := [disk.NumOps]float64{metaMs, (v.dev.posMs + 4e3/1e6/v.dev.mbPerSec*1000) * f * queue, (v.dev.posMs + 4e3/1e6/v.dev.mbPerSec*1000) * f * queue}
	for op := range t.probes {
		t.probes[op] = int64(diskProbesPerSec * sec / disk.NumOps)
		t.probeMs[op] = mean(probeSvc[op], t.probes[op]) * float64(t.probes[op])
	}
	return t
}

// poisson draws a Poisson count of mean m: Knuth's product of uniforms
// below 30, the normal approximation above.
func poisson(rng *rand.Rand, m float64) int {
	if m <= 0 {
		return 0
	}
	if m >= 30 {
		return max(0, int(math.Round(m+math.Sqrt(m)*rng.NormFloat64())))
	}
	l, k, p := math.Exp(-m), 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return k
}
