package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// maxDisksBytes bounds the /slowdisks and /v1/slowdisks answers "report"
// reads.
const maxDisksBytes = 64 << 20

// serviceDisks is what "report" reads of a service's slow disks: its
// GET /slowdisks (the DataNodes' own reports) and the findings of its
// fleet view (GET /v1/slowdisks), each empty for a service without them.
type serviceDisks struct {
	reported []jmx.SlowDisk
	fleet    []namenode.DiskFinding
}

// fetchServiceDisks reads the slow disks of the service at base, before
// anything is printed, so that a bad answer prints nothing.
func fetchServiceDisks(ctx context.Context, client serviceClient, base string) (serviceDisks, error) {
	var d serviceDisks
	var err error
	d.reported, _, err = fetchOptional(ctx, client, base+namenode.SlowDisksPath, maxDisksBytes,
		func(body []byte) ([]jmx.SlowDisk, error) { return jmx.ParseSlowDisksReport(string(body)) })
	if err != nil {
		return d, err
	}
	d.fleet, _, err = fetchOptional(ctx, client, base+namenode.DiskFindingsPath, maxDisksBytes, parseDiskFindings)
	return d, err
}

// write prints the slow disks as a Hadoop NameNode's are printed, then
// the fleet view's findings, each when there are any.
func (d serviceDisks) write(w io.Writer) error {
	if len(d.reported) > 0 {
		fmt.Fprintln(w)
		if err := writeDiskTable(w, d.reported); err != nil {
			return err
		}
	}
	if len(d.fleet) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nFleet view (/v1/slowdisks): %d\n\n", len(d.fleet))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DISK\tKIND\tEVIDENCE\tOP\tVALUE ms\tMEDIAN ms\tSLOW SET")
	for _, f := range d.fleet {
		op, kind, in := "-", f.Kind, "no"
		if f.Op != nil {
			op = *f.Op
		}
		if kind == "" {
			kind = "-"
		}
		if f.InSlowSet {
			in = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\n", reports.SlowDiskID(f.Node, f.Disk), kind, f.Evidence, op, f.ValueMs, f.MedianMs, in)
	}
	return tw.Flush()
}

// parseDiskFindings decodes a /v1/slowdisks document strictly.
func parseDiskFindings(body []byte) ([]namenode.DiskFinding, error) {
	return decodeEntries(body, "a fleet view", func(f namenode.DiskFinding) error {
		if err := reports.ValidateNode(f.Node); err != nil {
			return fmt.Errorf("node: %w", err)
		}
		if err := reports.ValidateDisk(f.Disk); err != nil {
			return fmt.Errorf("%s: disk: %w", f.Node, err)
		}
		for _, v := range []float64{f.ValueMs, f.MedianMs, f.LimitMs} {
			if err := reports.ValidateLatency(v); err != nil {
				return fmt.Errorf("%s: %w", f.Node, err)
			}
		}
		return nil
	})
}
