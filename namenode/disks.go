package namenode

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// The paths of slow disks.
const (
	// SlowDisksPath serves Hadoop's slow-disk report: the top slow disks
	// the DataNodes' own tests found (DESIGN.md, "GET /slowdisks").
	SlowDisksPath = "/slowdisks"
	// DiskFindingsPath serves the fleet view: each volume compared with
	// like volumes of every node, and the slow set of disks.
	DiskFindingsPath = "/v1/slowdisks"
)

// reasonLimitDiskEntries refuses a heartbeat whose disks would pass
// MaxDiskEntries, with 429.
const reasonLimitDiskEntries = "limit_disk_entries"

func init() { statusOf[reasonLimitDiskEntries] = http.StatusTooManyRequests }

// disks is the service's view of slow disks: Hadoop's SlowDiskTracker
// over the DataNodes' slow-disk reports (behind /slowdisks and the JMX
// SlowDisksReport), the fleet view over the volumes they measure, and the
// slow set of disks the two feed. Heartbeats write the tracker;
// DiagnoseDisks, one at a time, judges and publishes; readers take the
// last publication.
type disks struct {
	cfg     DiskConfig
	tracker *tracker.Disks
	// slowSet holds disk ids, "node:volume", with the hysteresis of
	// Config.SlowSet and one finding enough.
	slowSet *tracker.SlowSet

	stepMu sync.Mutex // serialises DiagnoseDisks; guards fleet
	fleet  *disk.Fleet
	last   atomic.Pointer[diskResult]
}

// diskResult is one publication of DiagnoseDisks: never modified once
// stored.
type diskResult struct {
	findings []disk.Finding // non-nil
	// slowHosts are the hosts the picker counts slow by their disks.
	slowHosts []string
}

var emptyDiskResult = &diskResult{findings: []disk.Finding{}}

func newDisks(cfg Config) (*disks, error) {
	f, err := disk.NewFleet(cfg.Disks.Fleet)
	if err != nil {
		return nil, err
	}
	set := cfg.SlowSet
	set.EnterReporters = 1
	return &disks{
		cfg:     cfg.Disks,
		tracker: tracker.NewDisks(cfg.ReportValidity(), cfg.Disks.MaxEntries),
		slowSet: tracker.NewSlowSet(set),
		fleet:   f,
	}, nil
}

// current returns the last publication.
func (d *disks) current() *diskResult {
	if r := d.last.Load(); r != nil {
		return r
	}
	return emptyDiskResult
}

// carries reports whether hb says anything of disks the service takes.
func (d *disks) carries(hb reports.Heartbeat) bool {
	return d.cfg.Enabled() && (hb.SlowDisks != nil || hb.DiskLatencies != nil)
}

// admit returns the refusal of hb when its disks would pass the bound,
// else nil. The caller holds the Server's ingest lock, so that nothing
// else grows the tracker before report.
func (d *disks) admit(hb reports.Heartbeat) error {
	if !d.carries(hb) {
		return nil
	}
	if err := d.tracker.Admits(hb.Node, hb.SlowDisks, hb.DiskLatencies); err != nil {
		return limitError(reasonLimitDiskEntries, MaxDiskEntriesKey, d.cfg.MaxEntries, "disk entries")
	}
	return nil
}

// report applies hb's disks at now, after admit let them in.
func (d *disks) report(now time.Time, hb reports.Heartbeat) {
	if !d.carries(hb) {
		return
	}
	if err := d.tracker.Report(now, hb.Node, hb.SlowDisks, hb.DiskLatencies); err != nil {
		panic("BUG: namenode: disks refused after admit: " + err.Error())
	}
}

// DiagnoseDisks is the slow disks' periodic work at now: it drops what is
// no longer valid, runs the fleet view over the volumes measured, feeds
// the slow set of disks with its findings and with the slow-disk reports
// of nodes that measure none (an agent reading a Hadoop DataNode), and
// publishes the result. Serve calls it, as it calls Diagnose.
func (s *Server) DiagnoseDisks(now time.Time) []disk.Finding {
	d := s.disks
	d.stepMu.Lock()
	defer d.stepMu.Unlock()
	d.tracker.Expire(now)
	measured := d.tracker.Measured(now)
	nodes := make([]disk.NodeDisks, len(measured))
	volumes := make(map[string]int, len(measured))
	for i, m := range measured {
		nodes[i] = disk.NodeDisks{Node: m.Node, Disks: m.Disks}
		volumes[m.Node] = len(m.Disks)
	}
	findings := d.fleet.Judge(nodes)
	if findings == nil {
		findings = []disk.Finding{}
	}
	ids := disk.SlowIDs(findings, d.tracker.Slow(now), func(node string) bool { return volumes[node] > 0 })
	d.slowSet.Update(now, diskCounts(ids))
	d.last.Store(&diskResult{findings: findings, slowHosts: slowDiskHosts(d.slowSet.Nodes(), volumes, d.cfg.HostShare)})
	return findings
}

// diskCounts is ids as the evidence of a slow set: one each.
func diskCounts(ids []string) []tracker.NodeCount {
	out := make([]tracker.NodeCount, len(ids))
	for i, id := range ids {
		out[i] = tracker.NodeCount{Node: id, Reporters: 1}
	}
	return out
}

// DiskCounts is diskCounts for the simulator, which feeds its slow sets
// of disks as the service does.
func DiskCounts(ids []string) []tracker.NodeCount { return diskCounts(ids) }

// runDiskDiagnosis calls DiagnoseDisks every DiagnoseEvery, or after
// DiagnoseSpacing times the last one's duration when that is longer (at
// 10 000 nodes of 12 volumes a fleet view takes tens of milliseconds), as
// runDiagnosis does, until ctx is done, then returns nil. Serve runs it.
func (s *Server) runDiskDiagnosis(ctx context.Context) error {
	if !s.cfg.Disks.Enabled() {
		return nil
	}
	var next time.Time // the earliest start of the next one
	every(ctx, DiagnoseEvery, func() {
		if time.Now().Before(next) {
			return
		}
		s.heavy.do(ctx, func() {
			start := time.Now()
			s.DiagnoseDisks(s.now())
			next = start.Add(DiagnoseSpacing * time.Since(start))
		})
	})
	return nil
}

// slowDiskHosts returns, sorted, the hosts of the nodes at least share of
// whose measured volumes are in slow (disk ids).
func slowDiskHosts(slow []string, volumes map[string]int, share float64) []string {
	count := map[string]int{}
	for _, id := range slow {
		node, _ := reports.SplitDiskID(id)
		count[node]++
	}
	var hosts []string
	for node, k := range count {
		if n := volumes[node]; n > 0 && float64(k) >= share*float64(n) {
			if h := reports.Host(node); !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	slices.Sort(hosts)
	return hosts
}

// addSlowDiskHosts appends to hosts those of the last DiagnoseDisks that
// it does not hold.
func (s *Server) addSlowDiskHosts(hosts []string) []string {
	for _, h := range s.disks.current().slowHosts {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// SlowDisks returns the disk ids ("host:port:volume") of the slow set of
// disks, sorted.
func (s *Server) SlowDisks() []string { return s.disks.slowSet.Nodes() }

// DiskFindings returns the findings of the last DiagnoseDisks, sorted by
// node, disk, evidence and operation. The slice is shared: not to be
// changed.
func (s *Server) DiskFindings() []disk.Finding { return s.disks.current().findings }

// MeasuredDisks returns what every node measured of its volumes, valid at
// now, sorted by node. The volumes are shared: not to be changed.
func (s *Server) MeasuredDisks(now time.Time) []tracker.NodeDisks {
	return s.disks.tracker.Measured(now)
}

// IsSlowDisk reports whether the disk id ("host:port:volume") is in the
// slow set of disks.
func (s *Server) IsSlowDisk(id string) bool { return s.disks.slowSet.Contains(id) }
