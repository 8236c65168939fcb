package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/slowpeer/slowpeer/jmx"
)

// writeReportTable prints nodes as a table: each slow node with its number
// of reporters, then one line per reporting node with what it measured; a
// figure the NameNode did not send shows as "-", never as 0.
func writeReportTable(w io.Writer, nodes []jmx.SlowNode) error {
	if len(nodes) == 0 {
		_, err := fmt.Fprintln(w, "No slow nodes reported.")
		return err
	}
	fmt.Fprintf(w, "Slow nodes: %d\n\n", len(nodes))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SLOW NODE\tREPORTERS\tREPORTING NODE\tLATENCY ms\tMEDIAN ms\tMAD ms\tUPPER LIMIT ms")
	for _, n := range nodes {
		for i, r := range n.Reporters {
			node, count := "", ""
			if i == 0 {
				node, count = n.Node, strconv.Itoa(len(n.Reporters))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", node, count, r.Node,
				ms(r.LatencyMs), ms(r.MedianMs), ms(r.MADMs), ms(r.UpperLimitMs))
		}
	}
	return tw.Flush()
}

// writeDiskTable prints a NameNode's slow disks, one line each, with a
// column per operation any of them has a latency for.
func writeDiskTable(w io.Writer, disks []jmx.SlowDisk) error {
	if len(disks) == 0 {
		_, err := fmt.Fprintln(w, "No slow disks reported.")
		return err
	}
	var ops []string
	for _, d := range disks {
		for op := range d.LatenciesMs {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	slices.Sort(ops)
	fmt.Fprintf(w, "Slow disks: %d\n\n", len(disks))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "DISK")
	for _, op := range ops {
		fmt.Fprintf(tw, "\t%s ms", op)
	}
	fmt.Fprintln(tw)
	for _, d := range disks {
		var line strings.Builder
		line.WriteString(d.ID)
		for _, op := range ops {
			var v *float64
			if x, ok := d.LatenciesMs[op]; ok {
				v = &x
			}
			line.WriteString("\t" + ms(v))
		}
		fmt.Fprintln(tw, line.String())
	}
	return tw.Flush()
}

// ms formats a figure in milliseconds, "-" when there is none.
func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}
