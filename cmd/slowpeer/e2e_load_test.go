//go:build e2e

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// The flags of TestServiceLoad. Their defaults are the small run every
// "go test" makes; BENCHMARKS.md gives the full one.
var (
	loadAgents         = flag.Int("load-agents", 500, "TestServiceLoad: simulated DataNodes")
	loadDuration       = flag.Duration("load-duration", 20*time.Second, "TestServiceLoad: how long the agents run")
	loadReportInterval = flag.Duration("load-report-interval", 6*time.Second, "TestServiceLoad: dfs.datanode.outliers.report.interval of the agents and the service")
	loadPeerLatencies  = flag.Bool("load-peer-latencies", true, "TestServiceLoad: the reports carry peerLatencies (false: slowPeers only)")
	loadServiceArgs    = flag.String("load-service-args", "", "TestServiceLoad: more arguments of the service, space-separated (-D key=value ...)")
	loadDashboard      = flag.Bool("load-dashboard", true, "TestServiceLoad: read the dashboard too (its page, and its live events)")
	loadBinary         = flag.String("load-binary", "", "TestServiceLoad: the slowpeer binary to run (default: build one)")
	loadReadEvery      = flag.Duration("load-read-every", time.Second, "TestServiceLoad: how often each reader reads its endpoint")
	loadConns          = flag.Int("load-conns", 0, "TestServiceLoad: 0 gives each agent a connection of its own, as real agents hold; N shares N among all agents")
	loadServiceEnv     = flag.String("load-service-env", "", "TestServiceLoad: environment of the service only, space-separated KEY=VALUE (GOMAXPROCS=8 ...)")
	loadProfile        = flag.String("load-profile", "", "TestServiceLoad: run the service as this test binary (TestLoadServiceProcess) and write its CPU, mutex, block and memory profiles into this directory")
)

// loadReadPaths are what the readers poll, each every -load-read-every: the
// reports, the dashboard's page, and (added when the service answers it)
// the diagnosis.
var loadReadPaths = []string{namenode.SlowPeersPath, namenode.JMXPath, namenode.MetricsPath,
	namenode.DataNodesPath, dashboard.Path}

// loadGeneratorMemory is the generator's memory limit, when it collects
// garbage again (about 16 MB a second at 10 000 agents).
const loadGeneratorMemory = 8 << 30

// loadOptionalPaths are the diagnosis and the fast path's suspects
// (DESIGN.md), polled when the service has them.
var loadOptionalPaths = []string{"/v1/slownodes", namenode.SuspectsPath}

// TestServiceLoad plays -load-agents DataNodes against one service
// process (the built binary, so that its CPU and memory are its own):
// each sends a heartbeat every 3 s (Hadoop's default), the agents spread
// evenly over the period, each with the recent latencies of its coverage
// blocks and the answers to its last reply's probe requests, and once per
// -load-report-interval a report (1 % of the nodes are slow all along, so
// reports name them; one more node is slow for a while every
// loadIncidentEvery, so that the fast path suspects, asks for probes and
// confirms all through the run), while readers poll /slowpeers, /jmx,
// /metrics, /v1/datanodes, the dashboard page (and /v1/slownodes,
// /v1/suspects) once a second each and one dashboard page follows the
// live events. After a warm-up of one report interval (at most a third
// of the run) it measures, until the end, the service's CPU and memory
// and every endpoint's latency as the clients see it, and logs them; it
// fails if any request failed, an agent is not live at the end, or
// /slowpeers names a node that is not slow, or the fast path asked for no
// probes or confirmed nothing. It stops by itself.
//
//	go test -tags e2e ./cmd/slowpeer -run '^TestServiceLoad$' -v -timeout 10m \
//	    -load-agents 10000 -load-duration 3m -load-report-interval 60s -load-conns 64
func TestServiceLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a service and runs for -load-duration")
	}
	n, hb, ri := *loadAgents, reports.DefaultHeartbeatInterval, *loadReportInterval
	warmup := min(ri, *loadDuration/3)
	lc := newLoadCluster(n, 1, ri, *loadPeerLatencies)

	bin := *loadBinary
	if bin == "" {
		bin = buildSlowpeer(t)
	}
	addr := freePorts(t, 1)[0]
	base := "http://" + addr
	args := append([]string{"namenode", "-listen", addr, "-conf", t.TempDir(),
		"-store", "sqlite:" + filepath.Join(t.TempDir(), "hive.db"),
		"-D", fmt.Sprintf("%s=%dms", reports.OutliersReportIntervalKey, ri.Milliseconds())}, strings.Fields(*loadServiceArgs)...)
	for _, kv := range strings.Fields(*loadServiceEnv) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v) // the service inherits it; this process read its own at start
	}
	procArgs := args
	if *loadProfile != "" {
		bin, procArgs = profiledService(t, *loadProfile, args)
	}
	nn := startProc(t, bin, "namenode", addr, procArgs...)
	if *loadProfile != "" {
		defer stopProfiled(t, nn) // after the last check: the profiles cover the run
	}
	readers := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer readers.CloseIdleConnections()
	waitUp(t, readers, base, nn)
	paths := loadReadPaths
	if !*loadDashboard {
		paths = paths[:len(paths)-1]
	}
	for _, p := range loadOptionalPaths {
		if resp, err := readers.Get(base + p); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				paths = append(paths, p)
			}
		}
	}
	t.Logf("%d agents, heartbeat %v, report interval %v, peerLatencies %v, connections %s; readers of %v every %v; service %v, environment %q",
		n, hb, ri, *loadPeerLatencies, connsName(*loadConns, n), paths, *loadReadEvery, args[1:], *loadServiceEnv)

	// The generator collects no garbage during the run, up to a limit far
	// above what 10 000 agents allocate in minutes: its own collections
	// (10 000 goroutines' stacks to scan) held heartbeats it had sent for
	// tens of milliseconds, and were counted as the service's latency.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(loadGeneratorMemory))

	// The run is bounded by its own deadline, whatever the service does.
	ctx, cancel := context.WithTimeout(context.Background(), *loadDuration+time.Second)
	defer cancel()
	start := time.Now().Add(time.Second)
	from, to := start.Add(warmup), start.Add(*loadDuration)
	rec := newLoadRecorder()
	rec.window(from, to)
	var wg sync.WaitGroup
	tally := &loadTally{}
	for _, w := range loadWorkers(addr, lc, *loadConns, hb, ri, tally) {
		wg.Go(func() { w.run(ctx, start, rec) })
	}
	for _, p := range paths {
		wg.Go(func() { runReader(ctx, readers, base+p, p, rec) })
	}
	events := make(chan loadEvents, 1)
	if *loadDashboard {
		wg.Go(func() { events <- followEvents(ctx, base+dashboard.EventsPath, rec) })
	} else {
		events <- loadEvents{}
	}

	sleepUntil(ctx, from)
	svc0, gen0 := mustSample(t, nn.cmd.Process.Pid), mustSample(t, os.Getpid())
	buckets0, err0 := heartbeatBuckets(t.Context(), readers, base)
	var peakRSS int64
	for tick := time.NewTicker(time.Second); time.Now().Before(to); {
		<-tick.C
		if s, err := sampleProc(nn.cmd.Process.Pid); err == nil {
			peakRSS = max(peakRSS, s.rss)
		}
	}
	svc1, gen1 := mustSample(t, nn.cmd.Process.Pid), mustSample(t, os.Getpid())
	if *loadProfile != "" {
		profileHeap(nn)
	}
	buckets1, err1 := heartbeatBuckets(t.Context(), readers, base)
	cancel()
	wg.Wait()
	ev := <-events

	t.Logf("window %v after a warm-up of %v", to.Sub(from).Round(time.Second), warmup)
	t.Logf("service: %.3f cores, RSS %.1f MiB at the end, %.1f MiB at most in the window, VmHWM %.1f MiB",
		cores(svc0, svc1), mib(svc1.rss), mib(max(peakRSS, svc1.rss)), mib(svc1.peak))
	t.Logf("generator (this test process): %.3f cores, RSS %.1f MiB", cores(gen0, gen1), mib(gen1.rss))
	t.Logf("%-22s %9s %9s %9s %9s %9s %7s", "endpoint", "requests", "measured", "p50", "p99", "max", "errors")
	for _, s := range rec.stats() {
		t.Logf("%-22s %9d %9d %9v %9v %9v %7d", s.endpoint, s.requests, s.measured,
			s.p50.Round(10*time.Microsecond), s.p99.Round(10*time.Microsecond), s.max.Round(10*time.Microsecond), s.errors)
		if s.errors > 0 {
			t.Errorf("%s: %d of %d requests failed, the first: %s", s.endpoint, s.errors, s.requests, s.firstErr)
		}
	}
	if err := errors.Join(err0, err1); err != nil {
		t.Errorf("the service's heartbeat durations: %v", err)
	} else {
		p50, _ := bucketQuantile(buckets0, buckets1, 0.5)
		p99, count := bucketQuantile(buckets0, buckets1, 0.99)
		t.Logf("heartbeats as the service timed them (%.0f, in its buckets): p50 ≤ %v s, p99 ≤ %v s", count, p50, p99)
	}
	t.Logf("%s: %d events, the largest %d bytes", dashboard.EventsPath, ev.events, ev.maxBytes)
	if *loadDashboard && ev.events < int(to.Sub(start)/dashboard.DefaultInterval)/2 {
		t.Errorf("%s: %d events in %v, want one every %v", dashboard.EventsPath, ev.events, to.Sub(start), dashboard.DefaultInterval)
	}
	checkFastPath(t, readers, base, tally)
	checkLoadResult(t, readers, base, lc)
}

// checkLoadResult checks what the service holds after the run: every
// agent live, and only slow nodes in /slowpeers.
func checkLoadResult(t *testing.T, client *http.Client, base string, lc *loadCluster) {
	t.Helper()
	c := &cluster{base: base, client: client}
	var dn []struct {
		Node  string `json:"node"`
		State string `json:"state"`
	}
	if err := c.get(namenode.DataNodesPath, &dn); err != nil {
		t.Fatal(err)
	}
	live := 0
	for _, d := range dn {
		if d.State == "live" {
			live++
		}
	}
	if live != len(lc.nodes) || len(dn) != len(lc.nodes) {
		t.Errorf("%d DataNodes listed, %d of them live; want all %d live", len(dn), live, len(lc.nodes))
	}
	var top []reports.SlowNode
	if err := c.get(namenode.SlowPeersPath+"?top=1000", &top); err != nil {
		t.Fatal(err)
	}
	slow := lc.slowNodes()
	for _, s := range top {
		if !slow[s.Node] {
			t.Errorf("/slowpeers names %s, which is not slow", s.Node)
		}
	}
	if len(top) == 0 {
		t.Fatalf("/slowpeers is empty; %d nodes are slow", len(slow))
	}
	t.Logf("/slowpeers: %d of the %d slow nodes, the first with %d reporters", len(top), len(slow),
		len(top[0].Reporters))
}

// checkFastPath logs what the agents' evidence made of the fast path, and
// wants it to have asked for probes, had them answered and confirmed
// suspects.
func checkFastPath(t *testing.T, client *http.Client, base string, tally *loadTally) {
	t.Helper()
	p50, p99, top := tally.sizeQuantiles()
	t.Logf("heartbeat bodies as sent: p50 %d B, p99 %d B, max %d B; %d sent with gzip", p50, p99, top, tally.gzipped.Load())
	opened, err1 := metricSum(t.Context(), client, base, "slowpeer_suspicions_opened_total")
	verdicts, err2 := metricSum(t.Context(), client, base, `slowpeer_suspicion_verdicts_total{verdict="confirmed"}`)
	if err := errors.Join(err1, err2); err != nil {
		t.Errorf("the fast path's metrics: %v", err)
	}
	t.Logf("fast path: %.0f suspicions opened, %.0f confirmed; probe requests: %d asked, %d answered, %d ignored",
		opened, verdicts, tally.asked.Load(), tally.answered.Load(), tally.ignored.Load())
	if tally.asked.Load() == 0 || tally.answered.Load() == 0 || verdicts == 0 {
		t.Errorf("the fast path asked for %d probes, got %d answered and confirmed %.0f suspects; want some of each",
			tally.asked.Load(), tally.answered.Load(), verdicts)
	}
}
