package datanode

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/slowpeer/slowpeer/jmx"
)

// Agent is the DataNode-side agent: it serves probe pipelines on its data
// port, writes its own probe blocks, keeps the per-peer latencies, and
// sends heartbeats with the slow-peer report to every NameNode-side
// service, one independent loop per service.
//
// Several agents may run in one process (a demo runs a dozen on
// loopback), each with its own Config. An Agent is safe for concurrent
// use; Run may be called once. Its zero value is not usable; construct it
// with New.
type Agent struct {
	cfg      Config
	log      *slog.Logger
	client   *http.Client
	metrics  *PeerMetrics
	jmx      *HadoopJMX // nil unless cfg.HadoopJMX
	disks    *Disks     // nil without cfg.Volumes
	dial     dialFunc
	detect   detectFunc // nil: no reports
	services services
	// recent is the log of the blocks the agent times, for heartbeats'
	// recentLatencies; nil when it times none (-hadoop-jmx, peer
	// statistics off).
	recent  *recentLog
	confirm *confirmer // takes the services' probe requests

	metricsSet *metrics.Set               // what /metrics writes
	data       atomic.Pointer[dataServer] // the data port's server, once Run serves it
	// hostname is JvmMetrics' tag.Hostname; readRuntime reads the Go
	// runtime for it (tests replace it).
	hostname    string
	readRuntime func() jmx.Runtime
	httpPort    atomic.Pointer[string] // the HTTP port's port, once Run serves it
	httpAddr    atomic.Pointer[string] // its host:port as heartbeats announce it, once Run opened it

	counters counters
	started  atomic.Bool
}

// New returns an agent for cfg, or the first problem Validate finds.
func New(cfg Config) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, log: cfg.Logger, client: cfg.HTTPClient, metrics: cfg.PeerMetrics, dial: dialer(cfg),
		readRuntime: jmx.ReadRuntime}
	a.hostname, _ = os.Hostname() // none: JvmMetrics goes without tag.Hostname
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 2
		if cfg.TLS != nil {
			tr.TLSClientConfig = cfg.TLS
		}
		a.client = &http.Client{Transport: tr}
	}
	if a.metrics == nil {
		a.metrics = NewPeerMetrics(probeMetricsConfig(cfg))
	}
	var detect detectFunc = func(now time.Time) (Detection, error) { return a.metrics.Detect(now), nil }
	switch {
	case !cfg.PeerStatsEnabled:
		detect = nil // no reports, as a Hadoop DataNode without peer metrics
	case cfg.HadoopJMX != "":
		a.jmx = newHadoopJMX(cfg, cfg.HadoopJMX, a.client, &a.counters,
			a.log.With(slog.String("source", "hadoop-jmx")))
		detect = a.jmx.Detect
	}
	disks, err := newDisks(cfg, a.client, &a.counters, a.log)
	if err != nil {
		return nil, err
	}
	a.disks = disks
	a.metricsSet = a.newMetricsSet()
	a.detect = detect
	if a.jmx == nil && cfg.PeerStatsEnabled {
		a.recent = newRecentLog(func(n int) { a.counters.recentBlocksDropped.Add(int64(n)) })
	}
	peers := probePeers(cfg.ID, cfg.Peers)
	a.confirm = newConfirmer(cfg, peers, a.probes(peers), &a.counters, a.log.With(slog.String("role", "confirm")))
	if err := a.SetNameNodes(cfg.NameNodes); err != nil {
		return nil, err
	}
	return a, nil
}

// probes reports whether the agent writes probe blocks of its own to peers.
func (a *Agent) probes(peers []string) bool {
	return a.jmx == nil && len(peers) > 0 && a.cfg.PeerStatsEnabled
}

// ID returns the agent's node id.
func (a *Agent) ID() string { return a.cfg.ID }

// PeerMetrics returns the agent's per-peer latencies: Config.PeerMetrics
// or the agent's own. With Config.HadoopJMX set, reports come from the
// Hadoop DataNode instead, and it holds only what a data port timed.
func (a *Agent) PeerMetrics() *PeerMetrics { return a.metrics }

// Disks returns the measurement of the agent's volumes, nil when it has
// none (Config.Volumes).
func (a *Agent) Disks() *Disks { return a.disks }

// Stats returns the agent's counters.
func (a *Agent) Stats() Stats { return a.counters.snapshot() }

// Services returns what the agent knows of each NameNode-side service it
// sends heartbeats to now, in the order of Config.NameNodes (then of
// SetNameNodes).
func (a *Agent) Services() []ServiceStatus { return a.services.statuses() }

// Run runs the agent until ctx is done and returns nil then, once every
// goroutine it started has ended and the data port is closed. It returns
// an error at once if the data port or the HTTP port cannot be opened. It
// panics if called twice.
func (a *Agent) Run(ctx context.Context) error {
	if !a.started.CompareAndSwap(false, true) {
		panic("BUG: datanode.Agent.Run called twice")
	}
	ln := a.cfg.DataListener
	if ln == nil && a.cfg.DataListen != "" {
		var lc net.ListenConfig
		var err error
		if ln, err = lc.Listen(ctx, "tcp", a.cfg.DataListen); err != nil {
			if a.cfg.HTTPListener != nil {
				a.cfg.HTTPListener.Close()
			}
			return fmt.Errorf("open the data port: %w", err)
		}
	}
	hln, err := a.openHTTPPort(ctx)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	peers := probePeers(a.cfg.ID, a.cfg.Peers)
	attrs := []any{slog.String("node", a.cfg.ID), slog.Any("namenodes", a.cfg.NameNodes),
		slog.Duration("heartbeat", a.cfg.HeartbeatInterval), slog.Duration("reportInterval", a.cfg.ReportInterval)}
	if ln != nil {
		attrs = append(attrs, slog.String("dataPort", ln.Addr().String()))
	}
	if hln != nil {
		addr := announcedAddress(hln.Addr().String(), a.cfg.ID)
		a.httpAddr.Store(&addr) // before the first heartbeat
		attrs = append(attrs, slog.String("httpPort", hln.Addr().String()))
	}
	switch {
	case !a.cfg.PeerStatsEnabled:
		attrs = append(attrs, slog.String("source", "none: dfs.datanode.peer.stats.enabled is false, so nothing is measured or reported"))
	case a.jmx != nil:
		attrs = append(attrs, slog.String("source", "hadoop-jmx "+a.jmx.URL()))
	case len(peers) > 0:
		c := a.cfg.Coverage(len(peers))
		attrs = append(attrs, slog.String("source", "probes"), slog.Int("peers", len(peers)),
			slog.Int64("probeBytesPerSecond", int64(a.cfg.ProbeBytesPerSecond())),
			slog.Int("coveragePackets", c.Packets), slog.Duration("coverageRound", c.Round))
	default:
		attrs = append(attrs, slog.String("source", "peer metrics"))
	}
	if a.disks != nil {
		attrs = append(attrs, slog.Any("volumes", a.disks.Volumes()))
	}
	a.log.Info("agent started", attrs...)
	for _, u := range a.cfg.NameNodes {
		if a.cfg.AuthToken != "" && strings.HasPrefix(strings.ToLower(u), "http://") {
			a.log.Warn("the bearer token goes to this service in clear: use https", slog.String("namenode", u))
		}
	}

	var wg sync.WaitGroup
	if hln != nil {
		wg.Go(func() { a.serveHTTP(ctx, hln) })
	}
	if ln != nil {
		m := a.metrics
		if !a.cfg.PeerStatsEnabled {
			m = nil // relay, time nothing
		}
		srv := newDataServer(a.cfg.ID, m, &a.counters, a.cfg.ProbeTimeout, a.cfg.FaultReceiveDelay,
			a.dial, a.log.With(slog.String("role", "relay")))
		srv.recent = a.recent
		a.data.Store(srv)
		wg.Go(func() { srv.serve(ctx, ln) })
	}
	if a.probes(peers) {
		p := newProber(a.cfg, peers, a.metrics, &a.counters, a.dial, a.log.With(slog.String("role", "prober")), rand.Uint64())
		p.recent, p.jobs = a.recent, a.confirm.jobs
		wg.Go(func() { p.run(ctx) })
	}
	if a.jmx != nil {
		wg.Go(func() { _ = a.jmx.Run(ctx) }) // nil: failed reads are logged and counted
	}
	if a.disks != nil {
		wg.Go(func() { a.disks.Run(ctx) })
	}
	wg.Go(func() { a.services.run(ctx) })
	if a.cfg.ProgressInterval > 0 {
		wg.Go(func() { a.progress(ctx) })
	}
	wg.Wait()
	a.client.CloseIdleConnections()
	a.log.Info("agent stopped", slog.String("node", a.cfg.ID))
	return nil
}

// progress logs, every ProgressInterval, what the agent did since the
// last time.
func (a *Agent) progress(ctx context.Context) {
	t := time.NewTicker(a.cfg.ProgressInterval)
	defer t.Stop()
	var last Stats
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s := a.Stats()
		a.log.Info("progress",
			slog.Int64("heartbeats", s.HeartbeatsSent-last.HeartbeatsSent),
			slog.Int64("heartbeatsFailed", s.HeartbeatsFailed-last.HeartbeatsFailed),
			slog.Int64("reports", s.ReportsSent-last.ReportsSent),
			slog.Int64("probeBlocks", s.ProbeBlocks-last.ProbeBlocks),
			slog.Int64("probeBlocksFailed", s.ProbeBlocksFailed-last.ProbeBlocksFailed),
			slog.Int64("relayedBlocks", s.RelayedBlocks-last.RelayedBlocks),
			slog.Int64("latencies", s.LatenciesRecorded-last.LatenciesRecorded),
			slog.Int64("corrupt", s.CorruptPackets-last.CorruptPackets),
			slog.Int64("dropped", s.DroppedConnections-last.DroppedConnections),
			slog.Int64("peersDropped", s.PeersDropped-last.PeersDropped),
			slog.Int64("bytesSent", s.ProbeBytesSent-last.ProbeBytesSent),
			slog.Int64("requestedBlocks", s.ProbeRequestedBlocks-last.ProbeRequestedBlocks),
			slog.Int64("requestsIgnored", s.ProbeRequestsIgnored-last.ProbeRequestsIgnored),
			slog.Int64("recentDropped", s.RecentBlocksDropped-last.RecentBlocksDropped),
			slog.Int64("jmxErrors", s.JMXErrors-last.JMXErrors),
			slog.Int("peersTested", len(a.metrics.Latencies(time.Now()))))
		last = s
	}
}
