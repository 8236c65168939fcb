package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/demo"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

const demoSynopsis = "[-datanodes N] [-slow INDEX] [-fault KIND=VALUE] [-lab] [-duration D] [-json]"

// runDemo runs "slowpeer demo" (package demo): a NameNode-side service
// and a cluster of agents on loopback, one of them slow, until the slow
// node is found; then it prints the report and stays up until ctx ends or
// -duration passes.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", demoSynopsis, stderr)
	cfg := demo.DefaultConfig()
	fs.IntVar(&cfg.DataNodes, "datanodes", cfg.DataNodes, "number of `N` agents to run")
	fs.IntVar(&cfg.Slow, "slow", cfg.Slow, "`INDEX` (0 to N-1) of the agent that is slow")
	faultSpec := fs.String("fault", cfg.Fault.String(),
		"what makes the slow agent slow, `KIND=VALUE`: ack-delay=D (no privileges), or made by the kernel, with every agent in a network namespace (root): receive-rate=RATE, send-rate=RATE, link-rate=RATE, pair-rate=RATE (e.g. 20mbit); none: no slow agent")
	slowDelay := fs.Duration("slow-delay", demo.DefaultSlowDelay, "`D` the slow agent waits before it acknowledges a packet, as -fault ack-delay=D; 0: no slow agent")
	fs.DurationVar(&cfg.Duration, "duration", 0, "stop after `D` (default: run until interrupted; with -json, a minute)")
	fs.BoolVar(&cfg.Lab, "lab", false, "run every agent in a network namespace of its own (root), as a kernel-made -fault does, also for ack-delay or none")
	fs.BoolVar(&cfg.JSON, "json", false, "print one JSON result object and exit once the fault is found, or after a minute (or -duration)")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if *slowDelay < 0 || *slowDelay > demo.MaxSlowDelay {
		return usageError{fmt.Errorf("-slow-delay %v: want 0 to %v", *slowDelay, demo.MaxSlowDelay)}
	}
	var err error
	if cfg.Fault, err = demo.ParseFault(*faultSpec); err != nil {
		return usageError{err}
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "slow-delay" {
			cfg.Fault = demo.AckDelay(*slowDelay)
		}
	})
	cfg.SoftwareVersion, cfg.Log = softwareVersion(), stderr
	cfg.Dashboard = func(srv *namenode.Server) *dashboard.Dashboard {
		return mountDashboard(srv, &dashboardSource{srv: srv}, time.Now)
	}
	cfg.Report = demoReport
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	return demo.Run(ctx, cfg, stdout)
}

// demoReport prints the demo's report with the pieces of "slowpeer
// report".
var demoReport = demo.Report{
	SlowPeers: func(ctx context.Context, w io.Writer, base string) ([]reports.SlowNode, error) {
		target, err := reportURL(base, 0, false)
		if err != nil {
			return nil, err
		}
		_, nodes, err := fetchReport(ctx, plainClient, target)
		if err != nil {
			return nil, err
		}
		return nodes, writeReportTable(w, fromService(nodes))
	},
	Diagnosis: writeDiagnosis,
	SlowDisks: func(ctx context.Context, base string) (demo.SlowDisks, error) {
		sd, err := fetchServiceDisks(ctx, plainClient, base)
		return demo.SlowDisks{Reported: sd.reported, Fleet: sd.fleet}, err
	},
	WriteSlowDisks: func(w io.Writer, d demo.SlowDisks) error {
		return serviceDisks{reported: d.Reported, fleet: d.Fleet}.write(w)
	},
}
