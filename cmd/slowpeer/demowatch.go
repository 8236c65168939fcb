package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// watch prints progress until the slow node is found, the deadline
// passes or ctx ends. A slow node is found once the diagnosis names it
// (for a pair-rate fault: a link between it and its peer) and, unless the
// fault is a bad link, demoQuorum peers report it, with the same kind for
// a whole report interval, and only once the slow node's own row and its
// peers' cells of it are in (judgedBothWays): the first reports of a
// cluster fill the matrix a row at a time, and which way a host is slow
// shows only once both are in. The time to detect is when that kind
// first showed. Every other node reported or diagnosed slow meanwhile is a
// false positive.
func (d *demo) watch(ctx context.Context, w io.Writer) {
	deadline := demoDeadline
	switch {
	case d.flags.json && d.flags.duration > 0:
		deadline = d.flags.duration
	case d.flags.json:
	case d.slowID == "":
		deadline = demoQuietReports * d.agentCfg.ReportInterval
	}
	check := time.NewTicker(demoCheckEvery)
	defer check.Stop()
	lastProgress := time.Duration(0)
	seen, seenAt := "", time.Duration(0) // the kind judged, since when
	for {
		select {
		case <-ctx.Done():
			return
		case <-check.C:
		}
		top := d.top()
		findings := d.srv.SlowNodeFindings()
		elapsed := d.since()
		kind, reporters := d.judge(top, findings)
		// Asked at every check, so that the service keeps gathering them.
		cells, _ := d.srv.PeerLatencyCells(0)
		if kind != "" && !d.judgedBothWays(cells) {
			kind = ""
		}
		if d.disks != nil {
			kind, reporters = d.judgeDisks(ctx)
		}
		switch {
		case kind == "":
			seen = ""
		case kind != seen:
			seen, seenAt = kind, elapsed
		case d.found == 0 && elapsed-seenAt >= d.agentCfg.ReportInterval:
			d.found, d.kind, d.reporters = seenAt, kind, reporters
		}
		if elapsed-lastProgress >= demoProgressEvery {
			lastProgress = elapsed
			d.printProgress(w, top, findings)
		}
		if d.found > 0 || elapsed >= deadline {
			return
		}
	}
}

// top is the service's slow-node report now, as /slowpeers gives it.
func (d *demo) top() []reports.SlowNode {
	return d.srv.Tracker().Top(time.Now(), d.srv.Config().MaxNodesToReport)
}

// printProgress prints one line: the agents' counters summed, how many
// agents have enough peers to test, the slow nodes in top and the
// diagnosis.
func (d *demo) printProgress(w io.Writer, top []reports.SlowNode, findings []diagnosis.Finding) {
	var s datanode.Stats
	ready := 0 // agents with enough peers for the outlier test
	now := time.Now()
	for _, a := range d.agents {
		as := a.Stats()
		s.HeartbeatsSent += as.HeartbeatsSent
		s.ProbeBlocks += as.ProbeBlocks
		s.LatenciesRecorded += as.LatenciesRecorded
		s.ReportsSent += as.ReportsSent
		n := len(a.PeerMetrics().Latencies(now))
		if n >= d.agentCfg.MinOutlierDetectionNodes {
			ready++
		}
	}
	disks := ""
	if d.disks != nil {
		disks = "; slow disks: " + d.diskSummary
	}
	fmt.Fprintf(w, "[%5.1fs] heartbeats %d, probe blocks %d, packets timed %d, reports %d, agents testing %d/%d; slow: %s; diagnosis: %s%s\n",
		d.since().Seconds(), s.HeartbeatsSent, s.ProbeBlocks, s.LatenciesRecorded, s.ReportsSent, ready, len(d.agents), slowSummary(top),
		findingSummary(findings), disks)
}

// slowSummary is one line naming the slow nodes and their reporters.
func slowSummary(top []reports.SlowNode) string {
	if len(top) == 0 {
		return "none"
	}
	parts := make([]string, len(top))
	for i, n := range top {
		parts[i] = fmt.Sprintf("%s (%d)", n.Node, len(n.Reporters))
	}
	return strings.Join(parts, ", ")
}

// report prints /slowpeers as "slowpeer report" prints it, the verdict and
// the URLs to look at.
func (d *demo) report(ctx context.Context, w io.Writer) error {
	target, err := reportURL(d.base, 0, false)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	_, nodes, err := fetchReport(ctx, plainClient, target)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "\nslowpeer report -namenode %s, after %v:\n\n", d.base, d.since())
	if err := writeReportTable(w, fromService(nodes)); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := writeDiagnosis(w, d.srv.SlowNodeFindings()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if d.disks != nil {
		return d.reportDisks(ctx, w)
	}
	var others []string
	reporters := 0
	for _, n := range nodes {
		if n.Node == d.slowID {
			reporters = len(n.Reporters)
		} else {
			others = append(others, n.Node)
		}
	}
	if d.slowID == "" {
		verdict := "none (correct)"
		if len(others) > 0 {
			verdict = fmt.Sprintf("%d, false alarms: %s", len(others), strings.Join(others, " "))
		}
		fmt.Fprintf(w, "Injected slow node: none (-fault none)\nNodes reported slow: %s\n", verdict)
	} else {
		fmt.Fprintf(w, "Injected slow node: %s (agent %d, -fault %s: %s)\n",
			d.slowID, d.flags.slow, d.flags.fault, d.flags.fault.describe(d.peerID))
		if d.found > 0 {
			fmt.Fprintf(w, "Found: yes, diagnosed %s from %d measured pairs; reported to the tracker by %d of its %d peers\n",
				d.kind, d.reporters, reporters, len(d.agents)-1)
			first := "no tracker report yet"
			if d.firstSeen > 0 {
				first = fmt.Sprintf("first tracker report after %v", d.firstSeen)
			}
			fmt.Fprintf(w, "Time to detect: %v (%s)\n", d.found, first)
		} else {
			fmt.Fprintf(w, "Found: NO, not diagnosed after %v; reported to the tracker by %d of its %d peers\n",
				d.since(), reporters, len(d.agents)-1)
		}
		other := "none"
		if fp := d.result().FalsePositives; len(fp) > 0 {
			other = strings.Join(fp, " ")
		}
		fmt.Fprintf(w, "Other nodes reported slow: %s\n", other)
	}
	fmt.Fprintf(w, "\nLook at:\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  slowpeer report -namenode %s\n",
		d.base, dashboard.Path, d.base, namenode.SlowPeersPath, d.base, namenode.SlowNodesPath, d.base, namenode.JMXPath, d.base, namenode.MetricsPath,
		d.base, namenode.DataNodesPath, d.base)
	return nil
}

// stayUp keeps the cluster running until ctx ends, with a line each time
// the set of slow nodes changes.
func (d *demo) stayUp(ctx context.Context, w io.Writer) {
	if ctx.Err() != nil {
		return
	}
	if d.flags.duration > 0 {
		fmt.Fprintf(w, "\nRunning until -duration %v has passed or Ctrl-C.\n", d.flags.duration)
	} else {
		fmt.Fprintln(w, "\nRunning until Ctrl-C.")
	}
	t := time.NewTicker(demoProgressEvery)
	defer t.Stop()
	last := slowSummary(d.top())
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s := slowSummary(d.top()); s != last {
			fmt.Fprintf(w, "[%5.1fs] slow: %s\n", d.since().Seconds(), s)
			last = s
		}
	}
}
