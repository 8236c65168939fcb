package namenode

import (
	"fmt"
	"io"
	"time"

	"github.com/slowpeer/slowpeer/disk"
	"github.com/slowpeer/slowpeer/reports"
)

// The families of slow disks.
const (
	diskEntriesFamily   = "slowpeer_disk_entries"
	diskReportsFamily   = "slowpeer_slow_disk_reports"
	diskFindingsFamily  = "slowpeer_slow_disk_findings"
	diskSetFamily       = "slowpeer_slow_set_disks"
	diskMemberFamily    = "slowpeer_slow_set_disk_member"
	diskSlowHostsFamily = "slowpeer_slow_disk_hosts"
)

// writeDiskMetrics writes the families of slow disks at now: what the
// tracker holds, the last fleet view, the slow set of disks (a series for
// each of its first MetricsSlowNodes members, by id, so that made-up
// names cannot grow the series) and the hosts it makes slow.
func (s *Server) writeDiskMetrics(w io.Writer, now time.Time) {
	d := s.disks
	last := d.current()
	writeFamily(w, diskEntriesFamily, "gauge",
		"Volumes the service holds: slow-disk report entries and measured volumes, valid or not yet expired.", d.tracker.Entries())
	writeFamily(w, diskReportsFamily, "gauge",
		"Disks that a valid slow-disk report of their DataNode names (Hadoop's test, GET /slowdisks).", len(d.tracker.Slow(now)))
	writeFamilyHeader(w, diskFindingsFamily, "gauge",
		"Findings of the last fleet view of the volumes (GET /v1/slowdisks), by evidence.")
	for _, e := range []disk.Evidence{disk.Latency, disk.Service} {
		n := 0
		for _, f := range last.findings {
			if f.Evidence == e {
				n++
			}
		}
		fmt.Fprintf(w, "%s{evidence=%s} %d\n", diskFindingsFamily, reports.QuoteLabel(string(e)), n)
	}
	members := d.slowSet.Nodes()
	writeFamily(w, diskSetFamily, "gauge",
		"Disks in the slow set of disks: found by the fleet view (or reported by a node that measures none) long enough, and not yet quiet long enough.", len(members))
	writeFamilyHeader(w, diskMemberFamily, "gauge",
		"1 for a disk in the slow set of disks, for the first slowpeer.namenode.metrics.slow.nodes members by id only.")
	for _, id := range members[:min(len(members), s.cfg.MetricsSlowNodes)] {
		node, volume := reports.SplitDiskID(id)
		fmt.Fprintf(w, "%s{node=%s,disk=%s} 1\n", diskMemberFamily, reports.QuoteLabel(node), reports.QuoteLabel(volume))
	}
	writeFamily(w, diskSlowHostsFamily, "gauge",
		"Hosts the HiveServer picker avoids for their disks: enough of a node's volumes slow (slowpeer.slow.disk.host.share).", len(last.slowHosts))
}
