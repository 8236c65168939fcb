package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// maxDataNodesBytes bounds the /v1/datanodes answer "admin -report" reads:
// namenode.DefaultMaxDataNodes rows of about 120 bytes fit.
const maxDataNodesBytes = 64 << 20

// dataNodeRow is a DataNode of "admin -report": what /v1/datanodes says
// of it, its place in the slow set (nil: none) and how many valid
// slow-peer reports name it (Hadoop's raw view, /slowpeers).
type dataNodeRow struct {
	Node          string        `json:"node"`
	State         string        `json:"state"`
	LastHeartbeat int64         `json:"lastHeartbeat"`
	HTTPAddress   string        `json:"httpAddress,omitempty"`
	SlowSet       *slowSetEntry `json:"slowSet"`
	Reporters     int           `json:"reporters"`
}

// adminReport is what "admin -report -json" prints.
type adminReport struct {
	DataNodes []dataNodeRow  `json:"datanodes"`
	SlowLinks []slowSetEntry `json:"slowLinks"`
}

// writeReport prints the report of the service at base.
func (f *adminFlags) writeReport(ctx context.Context, client serviceClient, base string, w io.Writer) error {
	r, err := readAdminReport(ctx, client, base)
	if err != nil {
		return err
	}
	r.DataNodes = f.filter(r.DataNodes)
	if f.asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	return writeAdminReport(w, r, time.Now())
}

// filter keeps the rows of the states asked for (all without any).
func (f *adminFlags) filter(rows []dataNodeRow) []dataNodeRow {
	chosen := false
	for _, on := range f.states {
		chosen = chosen || *on
	}
	if !chosen {
		return rows
	}
	var out []dataNodeRow
	for _, r := range rows {
		if on, ok := f.states[namenode.State(r.State)]; ok && *on {
			out = append(out, r)
		}
	}
	return out
}

// readAdminReport reads /v1/datanodes, /v1/slowset and /slowpeers of the
// service at base and joins them by node.
func readAdminReport(ctx context.Context, client serviceClient, base string) (adminReport, error) {
	rows, err := fetch(ctx, client, base+namenode.DataNodesPath, maxDataNodesBytes, parseDataNodes)
	if err != nil {
		return adminReport{}, err
	}
	set, err := fetch(ctx, client, base+namenode.SlowSetPath, maxSlowSetBytes, parseSlowSet)
	if errors.Is(err, errNotServed) {
		return adminReport{}, fmt.Errorf("%s has no %s: a slowpeer service older than this command", base, namenode.SlowSetPath)
	}
	if err != nil {
		return adminReport{}, err
	}
	_, slow, err := fetchReport(ctx, client, base+namenode.SlowPeersPath+"?top="+strconv.Itoa(namenode.MaxTop))
	if err != nil {
		return adminReport{}, err
	}
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		at[r.Node] = i
	}
	row := func(node string) *dataNodeRow {
		i, ok := at[node]
		if !ok { // known to the reports or the slow set, not to the table
			at[node] = len(rows)
			rows = append(rows, dataNodeRow{Node: node, State: "unknown"})
			i = at[node]
		}
		return &rows[i]
	}
	for i := range set.Nodes {
		row(set.Nodes[i].Node).SlowSet = &set.Nodes[i]
	}
	for _, n := range slow {
		row(n.Node).Reporters = len(n.Reporters)
	}
	return adminReport{DataNodes: rows, SlowLinks: set.Links}, nil
}

// parseDataNodes decodes a /v1/datanodes document strictly.
func parseDataNodes(body []byte) ([]dataNodeRow, error) {
	type listed struct {
		Node          string `json:"node"`
		State         string `json:"state"`
		LastHeartbeat int64  `json:"lastHeartbeat"`
		HTTPAddress   string `json:"httpAddress,omitempty"`
	}
	list, err := decodeEntries(body, "a DataNode list", func(d listed) error {
		if err := reports.ValidateNode(d.Node); err != nil {
			return err
		}
		switch namenode.State(d.State) {
		case namenode.Live, namenode.Stale, namenode.Dead, namenode.Excluded:
			return nil
		}
		return fmt.Errorf("%s: unknown state %q", d.Node, reports.Clip(d.State))
	})
	if err != nil {
		return nil, err
	}
	rows := make([]dataNodeRow, len(list))
	for i, d := range list {
		rows[i] = dataNodeRow{Node: d.Node, State: d.State, LastHeartbeat: d.LastHeartbeat, HTTPAddress: d.HTTPAddress}
	}
	return rows, nil
}

// writeAdminReport prints r as a table, with counts first, as "hdfs
// dfsadmin -report" starts with its summary.
func writeAdminReport(w io.Writer, r adminReport, now time.Time) error {
	count := map[string]int{}
	inSet := 0
	for _, d := range r.DataNodes {
		count[d.State]++
		if d.SlowSet != nil {
			inSet++
		}
	}
	fmt.Fprintf(w, "DataNodes: %d (%d live, %d stale, %d dead, %d excluded); slow set: %d nodes, %d links\n\n",
		len(r.DataNodes), count["live"], count["stale"], count["dead"], count["excluded"], inSet, len(r.SlowLinks))
	if len(r.DataNodes) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NODE\tSTATE\tLAST HEARTBEAT\tSLOW SET\tPAIRS\tIN SINCE\tREPORTERS\tHTTP")
		for _, d := range r.DataNodes {
			kind, pairs, since := "-", "-", "-"
			if e := d.SlowSet; e != nil {
				kind, pairs, since = orDash(e.Kind), strconv.Itoa(e.Pairs), ago(now, e.SinceMs)
				if e.Rack != "" {
					kind += " " + e.Rack
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", d.Node, d.State, ago(now, d.LastHeartbeat),
				kind, pairs, since, d.Reporters, orDash(d.HTTPAddress))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.SlowLinks) > 0 {
		fmt.Fprintln(w)
		return writeSlowSet(w, slowSetDoc{Nodes: []slowSetEntry{}, Links: r.SlowLinks}, now)
	}
	return nil
}
