package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/simulate"
)

const simulateSynopsis = "-nodes N -scenario NAME [-seed S] [-hours H] [-incidents N -every D -lasting D] [-warmup D] [-rack-size N] [-remote-peers N] [-answer-any] [-json] [-conf DIR] [-D key=value]..."

// simulateFlags are the flags of "slowpeer simulate".
type simulateFlags struct {
	nodes    int
	scenario string
	seed     uint64
	hours    float64
	json     bool
	conf     confFlags

	incidents      int
	every, lasting time.Duration
	warmup         time.Duration
	rackSize       int
	remotePeers    int
	answerAny      bool
}

// runSimulate runs "slowpeer simulate": a cluster of -nodes DataNodes in
// synthetic time through one scenario, slowpeer's real detection and
// Hadoop's algorithm on the same simulated packets, and prints their
// figures. The agent's and the service's keys (-conf, -D) set slowpeer's
// side; Hadoop's side keeps Hadoop's defaults.
func runSimulate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("simulate", simulateSynopsis, stderr)
	var f simulateFlags
	fs.IntVar(&f.nodes, "nodes", 0, "number of `N` DataNodes (at least two racks of 40)")
	fs.StringVar(&f.scenario, "scenario", "", "the `NAME` of the fault: "+scenarioNames())
	fs.Uint64Var(&f.seed, "seed", 1, "the random `S`eed; the same seed gives the same packets and the same figures, with the fast path or without")
	fs.Float64Var(&f.hours, "hours", simulate.DefaultHours, "`H` hours of the measured run, after an hour of warmup")
	fs.IntVar(&f.incidents, "incidents", 0, "`N` incidents of the scenario, each on fresh nodes (0: one, from the warmup's end to the run's)")
	fs.DurationVar(&f.every, "every", 20*time.Minute, "the time `D` between the starts of two incidents")
	fs.DurationVar(&f.lasting, "lasting", 10*time.Minute, "how long `D` each incident lasts")
	fs.DurationVar(&f.warmup, "warmup", simulate.DefaultWarmup, "`D` of healthy cluster before the measured part")
	fs.IntVar(&f.rackSize, "rack-size", simulate.DefaultRackSize, "`N` nodes a rack")
	fs.IntVar(&f.remotePeers, "remote-peers", simulate.DefaultRemotePeers, "`N` peers in other racks each node probes")
	fs.BoolVar(&f.answerAny, "answer-any", false, "agents obey the fast path's probe requests for any node, not only their peers")
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	f.conf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if f.nodes == 0 || f.scenario == "" {
		return usageError{errors.New("-nodes N and -scenario NAME are required")}
	}
	cfg := simulate.DefaultConfig(f.nodes, simulate.Scenario(f.scenario))
	cfg.Seed, cfg.Hours, cfg.Warmup = f.seed, f.hours, f.warmup
	cfg.Incidents, cfg.Every, cfg.Lasting = f.incidents, f.every, f.lasting
	cfg.RackSize, cfg.RemotePeers, cfg.AnswerAnyNode = f.rackSize, f.remotePeers, f.answerAny
	hoursSet := false
	fs.Visit(func(fl *flag.Flag) { hoursSet = hoursSet || fl.Name == "hours" })
	if f.incidents > 0 && !hoursSet {
		// Long enough for every incident and a late entry after the last.
		cfg.Hours = (time.Duration(f.incidents-1)*f.every + f.lasting + simulate.LateGrace).Hours()
	}
	conf, err := f.conf.load()
	if err != nil {
		return err
	}
	if err := simulateConf(conf, &cfg); err != nil {
		return usageError{err}
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	var progress func(done, total int)
	if isTerminal(stderr) {
		progress = func(done, total int) { drawProgress(stderr, done, total) }
	}
	r, err := simulate.Run(ctx, cfg, progress)
	if progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if f.json {
		return json.NewEncoder(stdout).Encode(r)
	}
	return writeSimulateTable(stdout, cfg, r)
}

// simulateConf reads the agent's keys and the service's into slowpeer's
// side of cfg, from the daemons' defaults, as the two daemons would read
// them: the report interval (which both read), the slow set, the
// diagnosis floor, the fast path (off with slowpeer.suspect.enabled=false).
func simulateConf(conf hadoopConf, cfg *simulate.Config) error {
	agent := datanode.DefaultConfig()
	if err := datanodeConf(conf, &agent); err != nil {
		return err
	}
	svc := namenode.DefaultConfig()
	if err := namenodeConf(conf, &svc); err != nil {
		return err
	}
	cfg.Slowpeer = simulate.Slowpeer(agent, svc)
	cfg.FastPath = nil
	if svc.SuspectEnabled {
		cfg.FastPath = &svc.Suspect
	}
	return nil
}

func scenarioNames() string {
	var names []string
	for _, s := range simulate.Scenarios() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// writeSimulateTable prints r as a table: slowpeer, slowpeer without its
// fast path (when it ran), Hadoop.
func writeSimulateTable(w io.Writer, cfg simulate.Config, r simulate.Result) error {
	fmt.Fprintf(w, "%d nodes, scenario %s, seed %d, %.4g h measured (%.4g node-days); at fault: %d\n\n",
		r.Nodes, r.Scenario, r.Seed, cfg.Hours, r.NodeDays, len(r.Truth))
	type side struct {
		name string
		m    simulate.Metrics
	}
	sides := []side{{"slowpeer", r.Slowpeer}}
	if r.WithoutFastPath != nil {
		sides = append(sides, side{"without fast path", *r.WithoutFastPath})
	}
	sides = append(sides, side{"hadoop", r.Hadoop})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sd := range sides {
		fmt.Fprintf(tw, "\t%s", sd.name)
	}
	fmt.Fprintln(tw)
	row := func(name string, f func(simulate.Metrics) string) {
		fmt.Fprint(tw, name)
		for _, sd := range sides {
			fmt.Fprintf(tw, "\t%s", f(sd.m))
		}
		fmt.Fprintln(tw)
	}
	row("precision", func(m simulate.Metrics) string { return ratio(m.Precision) })
	row("recall", func(m simulate.Metrics) string { return ratio(m.Recall) })
	row("false positives", func(m simulate.Metrics) string { return fmt.Sprint(m.FalsePositives) })
	row("time to detect p50", func(m simulate.Metrics) string { return quantileSeconds(m.TimeToDetectSeconds, false) })
	row("time to detect p95", func(m simulate.Metrics) string { return quantileSeconds(m.TimeToDetectSeconds, true) })
	row("flaps per hour", func(m simulate.Metrics) string { return fmt.Sprintf("%.2f", m.FlapsPerHour) })
	if r.Slowpeer.Incidents != nil {
		in := func(f func(*simulate.IncidentMetrics) string) func(simulate.Metrics) string {
			return func(m simulate.Metrics) string { return f(m.Incidents) }
		}
		row("incidents: detected", in(func(i *simulate.IncidentMetrics) string {
			return fmt.Sprintf("%d of %d", i.Detected, i.AtFault)
		}))
		row("incidents: time to enter p50", in(func(i *simulate.IncidentMetrics) string { return quantileSeconds(i.TimeToEnterSeconds, false) }))
		row("incidents: time to enter p95", in(func(i *simulate.IncidentMetrics) string { return quantileSeconds(i.TimeToEnterSeconds, true) }))
		row("incidents: kind right", in(func(i *simulate.IncidentMetrics) string { return ratio(i.KindRight) }))
		row("incidents: false entries", in(func(i *simulate.IncidentMetrics) string { return fmt.Sprint(i.FalsePositives) }))
		row("incidents: flaps per hour", in(func(i *simulate.IncidentMetrics) string { return fmt.Sprintf("%.2f", i.FlapsPerHour) }))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := r.Cost; c != nil {
		fmt.Fprintf(w, "\nfast path cost: heartbeat body p50/p99 %d/%d bytes (with a report %d/%d); %.0f probe blocks an agent-hour, %.1f of them asked for; %d requests ignored\n",
			c.HeartbeatBytes.WithoutReport.P50, c.HeartbeatBytes.WithoutReport.P99, c.HeartbeatBytes.WithReport.P50,
			c.HeartbeatBytes.WithReport.P99, c.ProbeBlocksPerAgentHour, c.RequestedBlocksPerAgentHour, c.RequestsIgnored)
	}
	for _, sd := range sides {
		if fp := sd.m.FalsePositiveEntities; len(fp) > 0 {
			more := ""
			if len(fp) > 8 {
				fp, more = fp[:8], fmt.Sprintf(" and %d more", len(sd.m.FalsePositiveEntities)-8)
			}
			fmt.Fprintf(w, "\n%s false positives: %s%s", sd.name, strings.Join(fp, ", "), more)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func ratio(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

func quantileSeconds(q *simulate.Quantiles, p95 bool) string {
	if q == nil {
		return "-"
	}
	s := q.P50
	if p95 {
		s = q.P95
	}
	return fmt.Sprintf("%.0f s", s)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// drawProgress redraws a one-line progress bar.
func drawProgress(w io.Writer, done, total int) {
	const width = 40
	n := done * width / max(total, 1)
	fmt.Fprintf(w, "\r[%s%s] %d/%d ticks", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
}
