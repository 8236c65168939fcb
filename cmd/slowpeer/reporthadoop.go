package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/jmx"
)

// peerStatsOff is what "report" says of a Hadoop NameNode whose
// SlowPeersReport is null or absent: its DatanodeManager keeps no
// SlowPeerTracker.
const peerStatsOff = "Slow-peer tracking is off on this NameNode (dfs.datanode.peer.stats.enabled=false)."

// noSlowPeers is what "report" says of a Hadoop NameNode whose
// NameNodeStatus has no SlowPeersReport at all.
const noSlowPeers = "This NameNode does not track slow peers: its NameNodeStatus has no SlowPeersReport (a Hadoop release before HDFS-11194)."

// hadoopReport is what "report" reads of a Hadoop NameNode.
type hadoopReport struct {
	// peersOff is true when SlowPeersReport is null, noTracker when it is
	// absent.
	peersOff, noTracker bool
	nodes               []jmx.SlowNode
	// disks is SlowDisksReport, nil when null or absent.
	disks []jmx.SlowDisk
}

// reportHadoop prints the slow-peer report of a Hadoop NameNode, read from
// the SlowPeersReport and SlowDisksReport attributes of the bean
// Hadoop:service=NameNode,name=NameNodeStatus of its /jmx. missing is the
// /slowpeers URL that answered 404, for errors. top > 0 keeps the top
// nodes. With asJSON it prints the slow nodes as /slowpeers does (Hadoop
// trunk's shape), leaving out every figure Hadoop did not send, or null
// when the NameNode does not track slow peers.
func reportHadoop(ctx context.Context, c serviceClient, root, missing string, top int, asJSON bool, stdout io.Writer) error {
	target := root + "/jmx?qry=" + url.QueryEscape(jmx.NameNodeStatusBean)
	r, err := fetch(ctx, c, target, jmx.MaxDocumentBytes, parseHadoopReport)
	if _, ok := errors.AsType[*statusError](err); ok {
		return fmt.Errorf("%w (and %s answered 404: neither a slowpeer service nor a Hadoop NameNode?)", err, missing)
	}
	if err != nil {
		return err
	}
	rankSlowNodes(r.nodes)
	if top > 0 && len(r.nodes) > top {
		r.nodes = r.nodes[:top]
	}
	if asJSON {
		return writeHadoopJSON(stdout, r)
	}
	switch {
	case r.noTracker:
		_, err = fmt.Fprintln(stdout, noSlowPeers)
	case r.peersOff:
		_, err = fmt.Fprintln(stdout, peerStatsOff)
	default:
		err = writeReportTable(stdout, r.nodes)
	}
	if err != nil {
		return err
	}
	if r.disks != nil {
		fmt.Fprintln(stdout)
		return writeDiskTable(stdout, r.disks)
	}
	return nil
}

// parseHadoopReport reads the NameNodeStatus bean out of a /jmx document.
func parseHadoopReport(body []byte) (hadoopReport, error) {
	var r hadoopReport
	beans, err := jmx.Parse(body)
	if err != nil {
		return r, err
	}
	b, ok := jmx.Find(beans, jmx.NameNodeStatusBean)
	if !ok {
		return r, fmt.Errorf("no bean %s: not a NameNode", jmx.NameNodeStatusBean)
	}
	v, ok := b.Attr(jmx.SlowPeersReport)
	switch v := v.(type) {
	case nil:
		r.peersOff, r.noTracker = ok, !ok
	case string:
		if r.nodes, err = jmx.ParseSlowPeersReport(v); err != nil {
			return r, err
		}
	default:
		return r, fmt.Errorf("%s is not a string", jmx.SlowPeersReport)
	}
	switch v, _ := b.Attr(jmx.SlowDisksReport); v := v.(type) {
	case nil:
	case string:
		if r.disks, err = jmx.ParseSlowDisksReport(v); err != nil {
			return r, err
		}
	default:
		return r, fmt.Errorf("%s is not a string", jmx.SlowDisksReport)
	}
	return r, nil
}

// rankSlowNodes orders nodes as the service ranks them: most reporters
// first, then the highest reported latency (a node without figures last),
// then by name. Hadoop writes them in heap order.
func rankSlowNodes(nodes []jmx.SlowNode) {
	maxLatency := func(n jmx.SlowNode) float64 {
		m := -1.0
		for _, r := range n.Reporters {
			if r.LatencyMs != nil {
				m = max(m, *r.LatencyMs)
			}
		}
		return m
	}
	slices.SortStableFunc(nodes, func(a, b jmx.SlowNode) int {
		if d := len(b.Reporters) - len(a.Reporters); d != 0 {
			return d
		}
		if la, lb := maxLatency(a), maxLatency(b); la != lb {
			if la > lb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Node, b.Node)
	})
}

// jsonReporter and jsonSlowNode are /slowpeers' shape with the figures
// Hadoop did not send left out.
type jsonReporter struct {
	Node         string   `json:"ReportingNode"`
	LatencyMs    *float64 `json:"ReportedLatency,omitempty"`
	MedianMs     *float64 `json:"MedianLatency,omitempty"`
	MADMs        *float64 `json:"MadLatency,omitempty"`
	UpperLimitMs *float64 `json:"UpperLimitLatency,omitempty"`
}

type jsonSlowNode struct {
	Node      string         `json:"SlowNode"`
	Reporters []jsonReporter `json:"SlowPeerLatencyWithReportingNodes"`
}

func writeHadoopJSON(w io.Writer, r hadoopReport) error {
	var out []jsonSlowNode // null when tracking is off
	if !r.peersOff && !r.noTracker {
		out = make([]jsonSlowNode, 0, len(r.nodes))
		for _, n := range r.nodes {
			j := jsonSlowNode{Node: n.Node}
			for _, rep := range n.Reporters {
				j.Reporters = append(j.Reporters, jsonReporter(rep))
			}
			out = append(out, j)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
