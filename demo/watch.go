package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// watch prints progress until the slow node is found, the deadline
// passes or ctx ends. A slow node is found once it enters the service's
// slow set (judge), at that moment, with the kind of its entry. A slow
// disk is found once its volume has been reported for a whole report
// interval (judgeDisks), at the first report. Every other node in the
// slow set meanwhile is a false positive.
func (d *demo) watch(ctx context.Context, w io.Writer) {
	deadline := deadline
	switch {
	case d.cfg.JSON && d.cfg.Duration > 0:
		deadline = d.cfg.Duration
	case d.cfg.JSON:
	case d.slowID == "" && d.disks != nil:
		deadline = quietReports * d.agentCfg.ReportInterval
	case d.slowID == "":
		deadline = quietFor
	}
	check := time.NewTicker(checkEvery)
	defer check.Stop()
	lastProgress := time.Duration(0)
	seen, seenAt := "", time.Duration(0) // the slow disk's kind, since when
	for {
		select {
		case <-ctx.Done():
			return
		case <-check.C:
		}
		top := d.top()
		elapsed := d.since()
		kind, pairs, fast := d.judge(time.Now(), top)
		// Asked at every check, so that the service keeps gathering them.
		d.srv.PeerLatencyCells(0)
		if d.disks != nil {
			kind, pairs = d.judgeDisks(ctx)
			switch {
			case kind == "":
				seen = ""
			case kind != seen:
				seen, seenAt = kind, elapsed
			case d.found == 0 && elapsed-seenAt >= d.agentCfg.ReportInterval:
				d.found, d.kind, d.reporters = seenAt, kind, pairs
			}
		} else if kind != "" && d.found == 0 {
			d.found, d.kind, d.reporters, d.fast = elapsed, kind, pairs, fast
		}
		if elapsed-lastProgress >= progressEvery {
			lastProgress = elapsed
			d.printProgress(w, top)
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
// agents have enough peers to test, the fast path's suspects, the slow
// set, the slow nodes in top and the diagnosis.
func (d *demo) printProgress(w io.Writer, top []reports.SlowNode) {
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
	fmt.Fprintf(w, "[%5.1fs] heartbeats %d, probe blocks %d, packets timed %d, reports %d, agents testing %d/%d; suspects: %s; slow set: %s; reported: %s; diagnosis: %s%s\n",
		d.since().Seconds(), s.HeartbeatsSent, s.ProbeBlocks, s.LatenciesRecorded, s.ReportsSent, ready, len(d.agents),
		suspectSummary(d.srv.Suspects(now)), d.slowSetSummary(now), slowSummary(top), findingSummary(d.srv.SlowNodeFindings()), disks)
}

// suspectSummary is one line naming the fast path's suspicions but the
// cleared ones, with their kind and state.
func suspectSummary(vs []suspect.View) string {
	var parts []string
	for _, v := range vs {
		if v.State == suspect.Cleared {
			continue
		}
		name := v.Node
		if v.Peer != "" {
			name += " to " + v.Peer
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", name, v.Kind, v.State))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// slowSetSummary is one line naming the members of the slow sets, with
// their kind.
func (d *demo) slowSetSummary(now time.Time) string {
	nodes, links := d.srv.SlowSets(now)
	var parts []string
	for _, e := range append(nodes, links...) {
		name := e.Node
		if e.Peer != "" {
			name += " to " + e.Peer
		}
		parts = append(parts, name+" "+e.Kind)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
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
	fmt.Fprintf(w, "\nslowpeer report -namenode %s, after %v:\n\n", d.base, d.since())
	nodes, err := d.cfg.Report.SlowPeers(ctx, w, d.base)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintln(w)
	if err := d.cfg.Report.Diagnosis(w, d.srv.SlowNodeFindings()); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if d.disks != nil {
		return d.reportDisks(ctx, w)
	}
	fmt.Fprintf(w, "Slow set (%s): %s\n\n", namenode.SlowSetPath, d.slowSetSummary(time.Now()))
	reporters := 0
	for _, n := range nodes {
		if n.Node == d.slowID {
			reporters = len(n.Reporters)
		}
	}
	fp := d.result().FalsePositives
	if d.slowID == "" {
		verdict := "none (correct)"
		if len(fp) > 0 {
			verdict = fmt.Sprintf("%d, false alarms: %s", len(fp), strings.Join(fp, " "))
		}
		fmt.Fprintf(w, "Injected slow node: none (-fault none)\nNodes in the slow set: %s\n", verdict)
	} else {
		fmt.Fprintf(w, "Injected slow node: %s (agent %d, -fault %s: %s)\n",
			d.slowID, d.cfg.Slow, d.cfg.Fault, d.cfg.Fault.describe(d.peerID))
		if d.found > 0 {
			by := "the diagnosis"
			if d.fast {
				by = "the fast path's confirmation"
			}
			fmt.Fprintf(w, "Found: yes, in the slow set as %s from %d pairs (%s); reported to the tracker by %d of its %d peers\n",
				d.kind, d.reporters, by, reporters, len(d.agents)-1)
			first := "no tracker report yet"
			if d.firstSeen > 0 {
				first = fmt.Sprintf("first tracker report after %v", d.firstSeen)
			}
			fmt.Fprintf(w, "Time to the slow set: %v (%s)\n", d.found, first)
		} else {
			fmt.Fprintf(w, "Found: NO, not in the slow set after %v; reported to the tracker by %d of its %d peers\n",
				d.since(), reporters, len(d.agents)-1)
		}
		other := "none"
		if len(fp) > 0 {
			other = strings.Join(fp, " ")
		}
		fmt.Fprintf(w, "Other nodes in the slow set: %s\n", other)
	}
	fmt.Fprintf(w, "\nLook at:\n")
	for _, p := range []string{dashboard.Path, namenode.SlowSetPath, namenode.SuspectsPath, namenode.SlowPeersPath, namenode.SlowNodesPath,
		namenode.JMXPath, namenode.MetricsPath, namenode.DataNodesPath} {
		fmt.Fprintf(w, "  %s%s\n", d.base, p)
	}
	fmt.Fprintf(w, "  slowpeer report -namenode %s\n", d.base)
	return nil
}

// stayUp keeps the cluster running until ctx ends, with a line each time
// the set of slow nodes changes.
func (d *demo) stayUp(ctx context.Context, w io.Writer) {
	if ctx.Err() != nil {
		return
	}
	if d.cfg.Duration > 0 {
		fmt.Fprintf(w, "\nRunning until -duration %v has passed or Ctrl-C.\n", d.cfg.Duration)
	} else {
		fmt.Fprintln(w, "\nRunning until Ctrl-C.")
	}
	t := time.NewTicker(progressEvery)
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
