package main

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
)

// watch prints progress until the slow node has demoQuorum reporters, the
// deadline passes or ctx ends.
func (d *demo) watch(ctx context.Context, w io.Writer) {
	deadline := demoDeadline
	if d.slowID == "" {
		deadline = demoQuietReports * d.agentCfg.ReportInterval
	}
	check := time.NewTicker(demoCheckEvery)
	defer check.Stop()
	lastProgress := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-check.C:
		}
		top := d.top()
		elapsed := d.since()
		for _, n := range top {
			if n.Node != d.slowID {
				continue
			}
			if d.firstSeen == 0 {
				d.firstSeen = elapsed
			}
			if len(n.Reporters) >= demoQuorum {
				d.found = elapsed
			}
		}
		if elapsed-lastProgress >= demoProgressEvery {
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
// agents have enough peers to test, and the slow nodes in top.
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
	fmt.Fprintf(w, "[%5.1fs] heartbeats %d, probe blocks %d, packets timed %d, reports %d, agents testing %d/%d; slow: %s\n",
		d.since().Seconds(), s.HeartbeatsSent, s.ProbeBlocks, s.LatenciesRecorded, s.ReportsSent, ready, len(d.agents), slowSummary(top))
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
		fmt.Fprintf(w, "Injected slow node: none (-slow-delay 0)\nNodes reported slow: %s\n", verdict)
	} else {
		fmt.Fprintf(w, "Injected slow node: %s (agent %d, +%v before each acknowledgement)\n",
			d.slowID, d.flags.slow, d.flags.slowDelay)
		if reporters >= demoQuorum {
			found := d.found
			if found == 0 { // ctx ended between the check and the report
				found = d.since()
			}
			if d.firstSeen == 0 {
				d.firstSeen = found
			}
			fmt.Fprintf(w, "Found: yes, reported by %d of its %d peers\n", reporters, len(d.agents)-1)
			fmt.Fprintf(w, "Time to detect: %v (first reporter after %v, %d reporters after %v)\n",
				found, d.firstSeen, demoQuorum, found)
		} else {
			fmt.Fprintf(w, "Found: NO, reported by %d of its %d peers after %v (%d needed)\n",
				reporters, len(d.agents)-1, d.since(), demoQuorum)
		}
		other := "none"
		if len(others) > 0 {
			other = strings.Join(others, " ")
		}
		fmt.Fprintf(w, "Other nodes reported slow: %s\n", other)
	}
	fmt.Fprintf(w, "\nLook at:\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  %s%s\n  slowpeer report -namenode %s\n",
		d.base, dashboard.Path, d.base, namenode.SlowPeersPath, d.base, namenode.JMXPath, d.base, namenode.MetricsPath,
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
