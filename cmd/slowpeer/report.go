package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

const reportSynopsis = "-namenode URL [-top N] [-json]"

// reportTimeout bounds the whole request of "report".
const reportTimeout = 30 * time.Second

// maxReportBytes bounds the answer "report" reads: MaxTop slow nodes with
// a few reporters each fit well within it.
const maxReportBytes = 256 << 20

// runReport runs "slowpeer report -namenode URL [-top N] [-json]": it
// reads the service's /slowpeers and prints it as a table, one line per
// (slow node, reporting node), as an operator reads `hdfs dfsadmin -report
// -slownodes`; or with -json the answer as the service gave it. A bad
// answer is an error and prints nothing.
func runReport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportSynopsis, stderr)
	base := fs.String("namenode", "", "base `URL` of the NameNode-side service, e.g. http://nn1:9871 (required)")
	top := fs.Int("top", 0, "show the top `N` slow nodes (default: the service's dfs.datanode.max.nodes.to.report)")
	asJSON := fs.Bool("json", false, "print the service's JSON instead of a table")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	topSet := false
	fs.Visit(func(f *flag.Flag) { topSet = topSet || f.Name == "top" })
	target, err := reportURL(*base, *top, topSet)
	if err != nil {
		return usageError{err}
	}
	body, nodes, err := fetchReport(ctx, target)
	if err != nil {
		return err
	}
	if *asJSON {
		_, err = fmt.Fprintf(stdout, "%s\n", bytes.TrimSpace(body))
		return err
	}
	return writeReportTable(stdout, nodes)
}

// reportURL checks -namenode and -top and returns the /slowpeers URL;
// without -top the service picks N.
func reportURL(base string, top int, topSet bool) (string, error) {
	if base == "" {
		return "", errors.New("-namenode URL is required")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("-namenode %q is not an http or https URL", base)
	}
	target := strings.TrimRight(u.String(), "/") + namenode.SlowPeersPath
	if topSet {
		if top < 1 || top > namenode.MaxTop {
			return "", fmt.Errorf("-top %d: want 1 to %d", top, namenode.MaxTop)
		}
		target += "?top=" + strconv.Itoa(top)
	}
	return target, nil
}

// fetchReport reads and checks the /slowpeers answer at target.
func fetchReport(ctx context.Context, target string) ([]byte, []reports.SlowNode, error) {
	ctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReportBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("report: read answer of %s: %w", target, err)
	}
	if len(body) > maxReportBytes {
		return nil, nil, fmt.Errorf("report: %s answered more than %d bytes", target, maxReportBytes)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return nil, nil, fmt.Errorf("report: %s answered %s: %s", target, resp.Status, e.Error)
		}
		return nil, nil, fmt.Errorf("report: %s answered %s: %q", target, resp.Status, clipBody(body))
	}
	nodes, err := parseReport(body)
	if err != nil {
		return nil, nil, fmt.Errorf("report: bad answer from %s: %w", target, err)
	}
	return body, nodes, nil
}

// parseReport decodes a /slowpeers document strictly and checks every
// node id and latency in it.
func parseReport(body []byte) ([]reports.SlowNode, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var nodes []reports.SlowNode
	if err := dec.Decode(&nodes); err != nil {
		return nil, fmt.Errorf("not a slow-peer report: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a slow-peer report: data after the JSON array")
	}
	if nodes == nil {
		return nil, errors.New("not a slow-peer report: want a JSON array")
	}
	for i, n := range nodes {
		if err := reports.ValidateNode(n.Node); err != nil {
			return nil, fmt.Errorf("entry %d: SlowNode: %w", i, err)
		}
		if len(n.Reporters) == 0 {
			return nil, fmt.Errorf("entry %d (%s): no reporting nodes", i, n.Node)
		}
		for j, r := range n.Reporters {
			if err := reports.ValidateNode(r.Node); err != nil {
				return nil, fmt.Errorf("entry %d (%s), reporter %d: %w", i, n.Node, j, err)
			}
			for _, v := range []float64{r.LatencyMs, r.MedianMs, r.MADMs, r.UpperLimitMs} {
				if err := reports.ValidateLatency(v); err != nil {
					return nil, fmt.Errorf("entry %d (%s), reporter %s: %w", i, n.Node, r.Node, err)
				}
			}
		}
	}
	return nodes, nil
}

// writeReportTable prints nodes as a table: each slow node with its number
// of reporters, then one line per reporting node with what it measured.
func writeReportTable(w io.Writer, nodes []reports.SlowNode) error {
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\n",
				node, count, r.Node, r.LatencyMs, r.MedianMs, r.MADMs, r.UpperLimitMs)
		}
	}
	return tw.Flush()
}
