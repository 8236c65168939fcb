package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

const reportSynopsis = "-namenode SERVICES|HADOOP-NAMENODE-URL [-top N] [-json] [-tls-ca F [-tls-cert F -tls-key F]] [-auth-token-file F] [-conf DIR] [-D key=value]..."

// reportTimeout bounds all the requests of "report".
const reportTimeout = 30 * time.Second

// maxReportBytes bounds the answer "report" reads: MaxTop slow nodes with
// a few reporters each fit well within it.
const maxReportBytes = 256 << 20

// runReport runs "slowpeer report -namenode URL [-top N] [-json]": it
// reads the slow-peer report and prints it as a table, one line per (slow
// node, reporting node), as an operator reads `hdfs dfsadmin -report
// -slownodes`; or with -json the report as JSON. URL is a slowpeer service
// (its /slowpeers) or a Hadoop NameNode's HTTP port, which has no
// /slowpeers: on a 404 the report comes from its /jmx (reportHadoop). A
// bad answer is an error and prints nothing.
func runReport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", reportSynopsis, stderr)
	base := fs.String("namenode", "", "base `URL` of the NameNode-side service or of a Hadoop NameNode's HTTP port, e.g. http://nn1:9870, or a registry zk://H:P/ROOT or etcd://H:P/ROOT whose first replica that answers is asked (required)")
	top := fs.Int("top", 0, "show the top `N` slow nodes (default: the service's dfs.datanode.max.nodes.to.report)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	var cf clientFlags
	cf.register(fs, "every request, for a service with -auth-reads")
	var conf confFlags
	conf.register(fs, etcdTLSKeys.defaults(discovery.EtcdTLS{}))
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	client, err := cf.client()
	if err != nil {
		return usageError{err}
	}
	etcd, err := etcdTLSOf(conf)
	if err != nil {
		return usageError{err}
	}
	topSet := false
	fs.Visit(func(f *flag.Flag) { topSet = topSet || f.Name == "top" })
	if *base == "" {
		return usageError{errors.New("-namenode URL is required")}
	}
	ctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	bases, err := serviceBases(ctx, *base, etcd, client)
	if err != nil {
		return err
	}
	return firstAnswer(bases, func(base string) error {
		return reportFrom(ctx, client, base, *top, topSet, *asJSON, stdout)
	})
}

// reportFrom prints the report of the service (or Hadoop NameNode) at
// base.
func reportFrom(ctx context.Context, client serviceClient, base string, top int, topSet, asJSON bool, stdout io.Writer) error {
	target, err := reportURL(base, top, topSet)
	if err != nil {
		return usageError{err}
	}
	body, nodes, err := fetchReport(ctx, client, target)
	if errors.Is(err, errNotServed) {
		// A Hadoop NameNode: the report is an attribute of its /jmx.
		path, _, _ := strings.Cut(target, "?") // -namenode has no query
		root := strings.TrimSuffix(path, namenode.SlowPeersPath)
		if !topSet {
			top = 0
		}
		return reportHadoop(ctx, client, root, target, top, asJSON, stdout)
	}
	if err != nil {
		return err
	}
	if asJSON {
		_, err = fmt.Fprintf(stdout, "%s\n", bytes.TrimSpace(body))
		return err
	}
	path, _, _ := strings.Cut(target, "?")
	root := strings.TrimSuffix(path, namenode.SlowPeersPath)
	disks, err := fetchServiceDisks(ctx, client, root)
	if err != nil {
		return err
	}
	if err := writeReportTable(stdout, fromService(nodes)); err != nil {
		return err
	}
	if err := writeServiceDiagnosis(ctx, client, stdout, root); err != nil {
		return err
	}
	if err := writeServiceSlowSet(ctx, client, stdout, root); err != nil {
		return err
	}
	if err := writeServiceSuspects(ctx, client, stdout, root); err != nil {
		return err
	}
	return disks.write(stdout)
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

// slowPeersAnswer is a /slowpeers answer: as the service sent it (for
// -json) and checked.
type slowPeersAnswer struct {
	body  []byte
	nodes []reports.SlowNode
}

// fetchReport reads and checks the /slowpeers answer at target; a 404
// wraps errNotServed.
func fetchReport(ctx context.Context, c serviceClient, target string) ([]byte, []reports.SlowNode, error) {
	ctx, cancel := context.WithTimeout(ctx, reportTimeout)
	defer cancel()
	a, err := fetch(ctx, c, target, maxReportBytes, func(body []byte) (slowPeersAnswer, error) {
		nodes, err := parseReport(body)
		return slowPeersAnswer{body, nodes}, err
	})
	return a.body, a.nodes, err
}

// parseReport decodes a /slowpeers document strictly and checks every
// node id and latency in it.
func parseReport(body []byte) ([]reports.SlowNode, error) {
	return decodeEntries(body, "a slow-peer report", func(n reports.SlowNode) error {
		if err := reports.ValidateNode(n.Node); err != nil {
			return fmt.Errorf("SlowNode: %w", err)
		}
		if len(n.Reporters) == 0 {
			return fmt.Errorf("%s: no reporting nodes", n.Node)
		}
		for j, r := range n.Reporters {
			if err := reports.ValidateNode(r.Node); err != nil {
				return fmt.Errorf("%s: reporter %d: %w", n.Node, j, err)
			}
			for _, v := range []float64{r.LatencyMs, r.MedianMs, r.MADMs, r.UpperLimitMs} {
				if err := reports.ValidateLatency(v); err != nil {
					return fmt.Errorf("%s: reporter %s: %w", n.Node, r.Node, err)
				}
			}
		}
		return nil
	})
}

// fromService turns the service's report, which always has every figure,
// into the form the table prints.
func fromService(nodes []reports.SlowNode) []jmx.SlowNode {
	out := make([]jmx.SlowNode, len(nodes))
	for i, n := range nodes {
		out[i].Node = n.Node
		for _, r := range n.Reporters {
			out[i].Reporters = append(out[i].Reporters, jmx.Reporter{Node: r.Node,
				LatencyMs: &r.LatencyMs, MedianMs: &r.MedianMs, MADMs: &r.MADMs, UpperLimitMs: &r.UpperLimitMs})
		}
	}
	return out
}
