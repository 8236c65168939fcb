package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/internal/group"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/netlab"
)

// Run runs the demo of cfg: a NameNode-side service and a cluster of
// agents on loopback (or in a network lab), one of them slow, until the
// slow node is found; then it prints the report to out and stays up
// until ctx ends or cfg.Duration passes. It returns once everything it
// started has stopped: the service or an agent that fails ends the demo
// with its error. A Config that Validate refuses starts nothing.
func Run(ctx context.Context, cfg Config, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	d, err := newDemo(ctx, cfg)
	if err != nil {
		return err
	}
	return d.run(ctx, out)
}

// demo is one run of the demo: the service, the agents and what the
// watcher has seen. Only run's goroutine touches the watcher's fields.
type demo struct {
	cfg      Config
	srv      *namenode.Server
	dash     *dashboard.Dashboard
	ln       net.Listener
	base     string // the service's base URL, as this process reaches it
	agents   []*datanode.Agent
	slowID   string          // the injected slow node, "" without one
	peerID   string          // the other end of a pair-rate fault, "" otherwise
	agentCfg datanode.Config // the agents' settings but their own
	quiet    atomic.Bool     // set when the agents stop: their logs end
	log      *slog.Logger    // the service's, errors only

	lab     *netlab.Lab  // the network lab of a kernel-made fault, nil otherwise
	forward net.Listener // on loopback, relayed to the service in the lab

	disks       *disks // the disk lab of a disk fault, nil otherwise
	diskSummary string // the slow disks the service reported at the last check

	start     time.Time
	firstSeen time.Duration // when the slow node had its first reporter, 0 before
	found     time.Duration // when it was found (see watch), 0 before
	kind      string        // its kind in the slow set (a disk's: "disk"), once found
	reporters int           // the pairs behind its slow-set entry, once found
	fast      bool          // it entered through the fast path's confirmation
	falsePos  map[string]bool
	events    io.Writer // stderr: the false positives as they come
}

// newDemo opens every listener on 127.0.0.1 port 0 and builds the service
// and the agents; nothing runs yet. The service and the agents run at the
// production defaults (namenode.DefaultConfig, datanode.DefaultConfig):
// the fast path puts a slow node in the slow set within seconds. A disk
// fault runs on namenode.DefaultLocalConfig and
// datanode.DefaultLocalConfig instead, Hadoop's keys shortened from
// minutes to seconds: slow disks are found by the DataNodes' own reports,
// not by the fast path.
func newDemo(ctx context.Context, f Config) (d *demo, err error) {
	stderr := f.Log
	d = &demo{cfg: f, falsePos: map[string]bool{}, events: stderr}
	var edit func(i int, cfg *datanode.Config)
	switch {
	case f.Fault.disk != "":
		if d.disks, err = newDisks(ctx, f.Fault, stderr); err != nil {
			return nil, err
		}
		edit = d.diskAgentConfig
	case f.Fault.lab != "" || f.Lab:
		return newLabDemo(ctx, d, stderr)
	}
	var lns []net.Listener
	defer func() {
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			if d.disks != nil {
				err = errors.Join(err, d.disks.lab.Close())
			}
		}
	}()
	listen := func() (net.Listener, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("demo: listen on loopback: %w", err)
		}
		lns = append(lns, ln)
		return ln, nil
	}
	if d.ln, err = listen(); err != nil {
		return nil, err
	}
	d.base = "http://" + d.ln.Addr().String()
	if err := d.newService(stderr); err != nil {
		return nil, err
	}
	data := make([]net.Listener, f.DataNodes)
	for i := range data {
		if data[i], err = listen(); err != nil {
			return nil, err
		}
	}
	if err := d.newAgents(d.base, data, stderr, edit); err != nil {
		return nil, err
	}
	return d, nil
}

// newService builds the service that will serve d.ln.
func (d *demo) newService(stderr io.Writer) error {
	ncfg := namenode.DefaultConfig()
	if d.disks != nil {
		ncfg = namenode.DefaultLocalConfig()
	}
	ncfg.Listen = d.ln.Addr().String()
	ncfg.SoftwareVersion = d.cfg.SoftwareVersion
	// The service is open on loopback; its access log and the open-service
	// warning would drown the progress lines.
	ncfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	d.log = ncfg.Logger
	var err error
	if d.srv, err = namenode.New(ncfg); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if d.cfg.Dashboard != nil {
		d.dash = d.cfg.Dashboard(d.srv)
	}
	return nil
}

// newAgents builds an agent on each data listener, reporting to the
// service at base; edit, if not nil, adjusts agent i's configuration.
func (d *demo) newAgents(base string, data []net.Listener, stderr io.Writer, edit func(i int, cfg *datanode.Config)) error {
	ids := make([]string, len(data))
	for i, ln := range data {
		ids[i] = ln.Addr().String()
	}
	d.agentCfg = datanode.DefaultConfig()
	if d.disks != nil {
		d.agentCfg = datanode.DefaultLocalConfig()
		d.agentCfg.MinOutlierDetectionNodes = min(d.agentCfg.MinOutlierDetectionNodes, len(data)-1)
	}
	d.agentCfg.NameNodes, d.agentCfg.Peers = []string{base}, ids
	d.agentCfg.ProgressInterval = -1
	log := slog.New(quietHandler{slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}), &d.quiet})
	f := d.cfg
	for i, id := range ids {
		cfg := d.agentCfg
		cfg.ID, cfg.DataListener, cfg.Logger = id, data[i], log.With(slog.Int("agent", i))
		if i == f.Slow && f.Fault.delay > 0 {
			cfg.FaultReceiveDelay = f.Fault.delay
			d.slowID = id
		}
		if edit != nil {
			edit(i, &cfg)
		}
		a, err := datanode.New(cfg)
		if err != nil {
			return fmt.Errorf("demo: agent %d: %w", i, err)
		}
		d.agents = append(d.agents, a)
	}
	return nil
}

// run starts the service and the agents, watches until the slow node is
// found (or the deadline, or ctx), prints the report, stays up until ctx
// ends, and stops everything it started. They run in one group with the
// watching: the service or an agent that fails ends the demo with its
// error.
func (d *demo) run(ctx context.Context, stdout io.Writer) error {
	// The service and the agents outlive ctx by the final report; the
	// watching member ends them by returning.
	g := group.New(d.log)
	g.Go("demo: service", func(ctx context.Context) error { return d.srv.Serve(ctx, d.ln) })
	if d.dash != nil {
		g.Go("demo: dashboard", d.dash.Run)
	}
	if d.lab != nil {
		g.Go("demo: forward", func(ctx context.Context) error { return d.lab.Forward(ctx, d.forward, 0, d.ln.Addr().String()) })
		g.Cleanup("demo: network lab", d.lab.Close)
	}
	if d.disks != nil {
		g.Cleanup("demo: disk lab", d.disks.lab.Close)
		g.Go("demo: disk load", d.disks.load)
	}
	for _, a := range d.agents {
		g.Go("demo: agent "+a.ID(), a.Run)
	}
	g.Go("demo: watch", func(life context.Context) error {
		// life ends when a component fails; watch and stayUp also
		// end with ctx.
		watching, stop := context.WithCancel(life)
		defer stop()
		defer context.AfterFunc(ctx, stop)()
		defer d.quiet.Store(true) // the agents' logs end here
		if d.cfg.JSON {
			d.watch(watching, io.Discard)
			if life.Err() != nil {
				return nil
			}
			return d.writeJSON(stdout)
		}
		d.printStart(stdout)
		d.watch(watching, stdout)
		if life.Err() != nil {
			return nil // the failed member's error ends the demo
		}
		if err := d.report(life, stdout); err != nil {
			return err
		}
		d.stayUp(watching, stdout)
		return nil
	})
	d.start = time.Now()
	err := g.Run(context.WithoutCancel(ctx))
	http.DefaultClient.CloseIdleConnections() // the report's connection
	if err != nil {
		return err
	}
	if !d.cfg.JSON {
		fmt.Fprintf(stdout, "Stopped after %v.\n", d.since())
	}
	return nil
}

func (d *demo) printStart(w io.Writer) {
	fmt.Fprintf(w, "NameNode-side service on %s\n", d.base)
	ids := make([]string, len(d.agents))
	for i, a := range d.agents {
		ids[i] = a.ID()
	}
	where := "on loopback"
	if d.lab != nil {
		where = "in network namespaces on one bridge"
	}
	fmt.Fprintf(w, "%d agents %s: %s\n", len(d.agents), where, strings.Join(ids, " "))
	switch {
	case d.disks != nil:
		fmt.Fprintf(w, "Disks of agent %d: %d volumes on loop devices; %s\n", d.cfg.Slow, len(d.disks.vols), d.disks.describe(d.cfg.Fault))
	case d.slowID != "":
		fmt.Fprintf(w, "Slow node: agent %d, %s, %s\n", d.cfg.Slow, d.slowID, d.cfg.Fault.describe(d.peerID))
	default:
		fmt.Fprintln(w, "No slow node (-fault none)")
	}
	fmt.Fprintf(w, "Heartbeat every %v, each peer probed at least every %v; slow-peer reports every %v, an agent tests its peers once %d of them have more than %d packets timed\n\n",
		d.agentCfg.HeartbeatInterval, d.agentCfg.ProbeCoverage, d.agentCfg.ReportInterval, d.agentCfg.MinOutlierDetectionNodes, d.agentCfg.MinOutlierDetectionSamples)
}

// since is the time since the cluster started, to a tenth of a second.
func (d *demo) since() time.Duration { return time.Since(d.start).Round(100 * time.Millisecond) }
