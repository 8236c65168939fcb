package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// maxDiagnosisBytes bounds the /v1/slownodes answer "report" reads.
const maxDiagnosisBytes = 64 << 20

// parseDiagnosis decodes a /v1/slownodes document strictly.
func parseDiagnosis(body []byte) ([]diagnosis.Finding, error) {
	return decodeEntries(body, "a diagnosis", func(f diagnosis.Finding) error {
		if err := reports.ValidateNode(f.Node); err != nil {
			return fmt.Errorf("node: %w", err)
		}
		switch f.Kind {
		case diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both, diagnosis.Link, diagnosis.Rack:
		default:
			return fmt.Errorf("%s: unknown kind %q", f.Node, reports.Clip(string(f.Kind)))
		}
		for _, v := range []float64{f.LatencyMs, f.MedianMs} {
			if err := reports.ValidateLatency(v); err != nil {
				return fmt.Errorf("%s: %w", f.Node, err)
			}
		}
		return nil
	})
}

// writeDiagnosis prints the findings of the diagnosis, one line each.
func writeDiagnosis(w io.Writer, fs []diagnosis.Finding) error {
	if len(fs) == 0 {
		_, err := fmt.Fprintln(w, "Diagnosis (/v1/slownodes): nothing slow.")
		return err
	}
	fmt.Fprintf(w, "Diagnosis (/v1/slownodes): %d\n\n", len(fs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tKIND\tPEER OR RACK\tREPORTERS\tLATENCY ms\tMEDIAN ms")
	for _, f := range fs {
		other := f.Peer + f.Rack
		if other == "" {
			other = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.2f\n", f.Node, f.Kind, other, strconv.Itoa(f.Reporters), f.LatencyMs, f.MedianMs)
	}
	return tw.Flush()
}

// writeServiceDiagnosis prints the diagnosis of the service at base after
// its report table, when the service has one.
func writeServiceDiagnosis(ctx context.Context, client serviceClient, w io.Writer, base string) error {
	fs, served, err := fetchOptional(ctx, client, base+namenode.SlowNodesPath, maxDiagnosisBytes, parseDiagnosis)
	if !served {
		return err
	}
	fmt.Fprintln(w)
	return writeDiagnosis(w, fs)
}
