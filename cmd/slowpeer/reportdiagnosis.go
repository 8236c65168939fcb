package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"text/tabwriter"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// maxDiagnosisBytes bounds the /v1/slownodes answer "report" reads.
const maxDiagnosisBytes = 64 << 20

// errNoDiagnosis: the service has no /v1/slownodes (an older one).
var errNoDiagnosis = errors.New("no /v1/slownodes")

// fetchDiagnosis reads and checks GET /v1/slownodes of the service at
// base.
func fetchDiagnosis(ctx context.Context, client serviceClient, base string) ([]diagnosis.Finding, error) {
	target := base + namenode.SlowNodesPath
	body, status, err := client.get(ctx, target, maxDiagnosisBytes)
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound {
		return nil, errNoDiagnosis
	}
	if err := answerError(target, status, body); err != nil {
		return nil, err
	}
	fs, err := parseDiagnosis(body)
	if err != nil {
		return nil, fmt.Errorf("report: bad answer from %s: %w", target, err)
	}
	return fs, nil
}

// parseDiagnosis decodes a /v1/slownodes document strictly.
func parseDiagnosis(body []byte) ([]diagnosis.Finding, error) {
	fs, err := decodeArray[diagnosis.Finding](body, "a diagnosis")
	if err != nil {
		return nil, err
	}
	for i, f := range fs {
		if err := reports.ValidateNode(f.Node); err != nil {
			return nil, fmt.Errorf("entry %d: node: %w", i, err)
		}
		switch f.Kind {
		case diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both, diagnosis.Link, diagnosis.Rack:
		default:
			return nil, fmt.Errorf("entry %d (%s): unknown kind %q", i, f.Node, f.Kind)
		}
		for _, v := range []float64{f.LatencyMs, f.MedianMs} {
			if err := reports.ValidateLatency(v); err != nil {
				return nil, fmt.Errorf("entry %d (%s): %w", i, f.Node, err)
			}
		}
	}
	return fs, nil
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
	fs, err := fetchDiagnosis(ctx, client, base)
	if errors.Is(err, errNoDiagnosis) {
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeDiagnosis(w, fs)
}
