package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// maxSlowSetBytes bounds the /v1/slowset answer the commands read.
const maxSlowSetBytes = 64 << 20

// slowSetDoc is GET /v1/slowset, and slowSetEntry one of its members.
type (
	slowSetDoc   = namenode.SlowSetJSON
	slowSetEntry = namenode.SlowSetEntryJSON
)

// parseSlowSet decodes a /v1/slowset document strictly.
func parseSlowSet(body []byte) (slowSetDoc, error) {
	var doc slowSetDoc
	if err := strictJSON(body, &doc); err != nil {
		return slowSetDoc{}, fmt.Errorf("not a slow set: %w", err)
	}
	if doc.Nodes == nil || doc.Links == nil {
		return slowSetDoc{}, errors.New(`not a slow set: want {"nodes": [...], "links": [...]}`)
	}
	for i, e := range append(append([]slowSetEntry(nil), doc.Nodes...), doc.Links...) {
		if err := reports.ValidateNode(e.Node); err != nil {
			return slowSetDoc{}, fmt.Errorf("entry %d: %w", i, err)
		}
		if err := reports.ValidateLatency(e.LatencyMs); err != nil {
			return slowSetDoc{}, fmt.Errorf("entry %d (%s): %w", i, e.Node, err)
		}
	}
	return doc, nil
}

// writeSlowSet prints the slow sets: what alerts fire on and what new
// work avoids, with why each member is in.
func writeSlowSet(w io.Writer, doc slowSetDoc, now time.Time) error {
	if len(doc.Nodes)+len(doc.Links) == 0 {
		_, err := fmt.Fprintln(w, "Slow set (/v1/slowset): empty; no alert fires and no work is moved.")
		return err
	}
	fmt.Fprintf(w, "Slow set (/v1/slowset): %d nodes, %d links; the nodes get no new Hive work and alert\n\n", len(doc.Nodes), len(doc.Links))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tKIND\tPEER OR RACK\tPAIRS\tLATENCY ms\tMEDIAN ms\tIN SINCE\tLAST FOUND")
	for _, e := range append(append([]slowSetEntry(nil), doc.Nodes...), doc.Links...) {
		other := e.Peer + e.Rack
		if other == "" {
			other = "-"
		}
		lat, med := "-", "-"
		if e.LatencyMs > 0 {
			lat, med = fmt.Sprintf("%.2f", e.LatencyMs), fmt.Sprintf("%.2f", e.MedianMs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Node, orDash(e.Kind), other, e.Pairs, lat, med,
			ago(now, e.SinceMs), ago(now, e.LastFoundMs))
	}
	return tw.Flush()
}

// ago writes a time in ms since the epoch as how long before now it was.
func ago(now time.Time, ms int64) string {
	if ms <= 0 {
		return "-"
	}
	d := max(0, now.Sub(time.UnixMilli(ms)).Round(time.Second))
	return d.String() + " ago"
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// writeServiceSlowSet prints the slow set of the service at base after
// its report, when the service has one.
func writeServiceSlowSet(ctx context.Context, client serviceClient, w io.Writer, base string) error {
	doc, served, err := fetchOptional(ctx, client, base+namenode.SlowSetPath, maxSlowSetBytes, parseSlowSet)
	if !served {
		return err
	}
	fmt.Fprintln(w)
	return writeSlowSet(w, doc, time.Now())
}
