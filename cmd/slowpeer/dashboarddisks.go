package main

import (
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/namenode"
)

// dashboardDisks is the disks' part of the dashboard: the fleet view's
// findings, one row a disk (its first finding), and every measured
// volume at its highest latency; nil when the service takes no disks.
func dashboardDisks(srv *namenode.Server, now time.Time) *dashboard.Disks {
	if !srv.Config().Disks.Enabled() {
		return nil
	}
	d := &dashboard.Disks{}
	seen := map[string]bool{}
	for _, f := range srv.DiskFindings() {
		if seen[f.ID()] {
			continue
		}
		seen[f.ID()] = true
		d.Slow = append(d.Slow, dashboard.SlowDisk{Node: f.Node, Disk: f.Disk, Kind: f.Kind, Evidence: string(f.Evidence),
			Op: f.Op, ValueMs: f.ValueMs, MedianMs: f.MedianMs, InSlowSet: srv.IsSlowDisk(f.ID())})
	}
	for _, n := range srv.MeasuredDisks(now) {
		for _, v := range n.Disks {
			var highest float64
			for _, ms := range v.Latencies {
				highest = max(highest, ms)
			}
			if len(v.Latencies) > 0 {
				d.Volumes = append(d.Volumes, dashboard.Volume{Node: n.Node, Disk: v.Disk, Kind: v.Kind, LatencyMs: highest})
			}
		}
	}
	return d
}
