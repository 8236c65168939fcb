package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// slowDiskID is the id the service gives the throttled volume, "" when
// none is.
func (d *demo) slowDiskID() string {
	if d.disks == nil || d.disks.slow == "" {
		return ""
	}
	return reports.SlowDiskID(d.slowID, d.disks.slow)
}

// judgeDisks reads the service's slow disks once: the slow-disk reports
// the DataNodes' own tests sent (GET /slowdisks) and the fleet view's
// slow set (GET /v1/slowdisks). It returns "disk" and 1 (the node that
// measured it) when the throttled volume is reported; every other volume
// reported, or in the slow set, is a false positive.
func (d *demo) judgeDisks(ctx context.Context) (kind string, reporters int) {
	sd, err := d.cfg.Report.SlowDisks(ctx, d.base)
	if err != nil {
		return "", 0
	}
	want := d.slowDiskID()
	var slow []string
	for _, r := range sd.Reported {
		slow = append(slow, r.ID)
		if r.ID == want {
			kind, reporters = "disk", 1
			continue
		}
		d.falsePositive(r.ID, fmt.Sprintf("reported slow by its node: %v ms", r.LatenciesMs))
	}
	for _, f := range sd.Fleet {
		if id := reports.SlowDiskID(f.Node, f.Disk); f.InSlowSet && id != want {
			d.falsePositive(id, fmt.Sprintf("in the fleet view's slow set: %s %.2f ms against a median of %.2f ms", f.Evidence, f.ValueMs, f.MedianMs))
		}
	}
	slices.Sort(slow)
	d.diskSummary = "none"
	if len(slow) > 0 {
		d.diskSummary = strings.Join(slow, ", ")
	}
	return kind, reporters
}

// reportDisks prints the service's slow disks as "slowpeer report" does,
// the verdict and the URLs to look at.
func (d *demo) reportDisks(ctx context.Context, w io.Writer) error {
	sd, err := d.cfg.Report.SlowDisks(ctx, d.base)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := d.cfg.Report.WriteSlowDisks(w, sd); err != nil {
		return err
	}
	fmt.Fprintln(w)
	switch {
	case d.disks.slow == "":
		fmt.Fprintf(w, "Injected slow disk: none (-fault %s)\n", d.cfg.Fault)
	case d.found > 0:
		fmt.Fprintf(w, "Injected slow disk: %s (-fault %s)\nFound: yes, reported slow by its node after %v\n",
			d.slowDiskID(), d.cfg.Fault, d.found)
	default:
		fmt.Fprintf(w, "Injected slow disk: %s (-fault %s)\nFound: NO, not reported after %v\n", d.slowDiskID(), d.cfg.Fault, d.since())
	}
	other := "none"
	if fp := d.result().FalsePositives; len(fp) > 0 {
		other = strings.Join(fp, " ")
	}
	fmt.Fprintf(w, "Other disks or nodes reported slow: %s (the busy volume: %s)\n", other, d.disks.vols[busyVolume].Dir)
	fmt.Fprintf(w, "\nLook at:\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  slowpeer report -namenode %s\n",
		d.base, dashboard.Path, d.base, namenode.SlowDisksPath, d.base, namenode.DiskFindingsPath, d.base, namenode.JMXPath, d.base)
	return nil
}
