package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// maxSuspectsBytes bounds the /v1/suspects answer "report" reads.
const maxSuspectsBytes = 16 << 20

// parseSuspects decodes a /v1/suspects document strictly.
func parseSuspects(body []byte) ([]suspect.View, error) {
	return decodeEntries(body, "a list of suspects", func(v suspect.View) error {
		if err := reports.ValidateNode(v.Node); err != nil {
			return fmt.Errorf("node: %w", err)
		}
		if v.Peer != "" {
			if err := reports.ValidateNode(v.Peer); err != nil {
				return fmt.Errorf("peer: %w", err)
			}
		}
		switch v.State {
		case suspect.Suspected, suspect.Confirming, suspect.Confirmed, suspect.Cleared:
		default:
			return fmt.Errorf("%s: unknown state %q", v.Node, reports.Clip(string(v.State)))
		}
		for _, x := range []float64{v.Evidence.LatencyMs, v.Evidence.ExpectedMs} {
			if err := reports.ValidateLatency(x); err != nil {
				return fmt.Errorf("%s: %w", v.Node, err)
			}
		}
		return nil
	})
}

// writeSuspects prints the fast path's suspicions, one line each.
func writeSuspects(w io.Writer, vs []suspect.View, now time.Time) error {
	if len(vs) == 0 {
		_, err := fmt.Fprintln(w, "Fast path (/v1/suspects): no suspect.")
		return err
	}
	fmt.Fprintf(w, "Fast path (/v1/suspects): %d; a confirmed one is in the slow set\n\n", len(vs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tPEER\tSTATE\tKIND\tROUNDS\tREPORTERS\tLATENCY ms\tEXPECTED ms\tSINCE")
	for _, v := range vs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%.2f\t%s\n", v.Node, orDash(v.Peer), v.State, orDash(string(v.Kind)),
			v.Rounds, v.Evidence.Reporters, v.Evidence.LatencyMs, v.Evidence.ExpectedMs, ago(now, v.Since.UnixMilli()))
	}
	return tw.Flush()
}

// writeServiceSuspects prints the fast path's suspicions of the service
// at base, when it has some.
func writeServiceSuspects(ctx context.Context, client serviceClient, w io.Writer, base string) error {
	vs, served, err := fetchOptional(ctx, client, base+namenode.SuspectsPath, maxSuspectsBytes, parseSuspects)
	if !served || len(vs) == 0 {
		return err
	}
	fmt.Fprintln(w)
	return writeSuspects(w, vs, time.Now())
}
