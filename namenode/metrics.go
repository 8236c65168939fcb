package namenode

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// The Server's families. Every name is prefixed slowpeer_; each writer
// below puts its family's # HELP and # TYPE lines before its samples.
const (
	heartbeatsFamily = "slowpeer_heartbeats_received_total"
	rejectedFamily   = "slowpeer_heartbeats_rejected_total"
	slowNodesFamily  = "slowpeer_slow_nodes"
	reportersFamily  = "slowpeer_slow_node_reporters"
	entriesFamily    = "slowpeer_tracker_entries"
	dataNodesFamily  = "slowpeer_datanodes"
	durationFamily   = "slowpeer_http_request_duration_seconds"
	refusedFamily    = "slowpeer_http_requests_refused_total"
	connsFamily      = "slowpeer_http_connections"
	evictedFamily    = "slowpeer_http_connections_evicted_total"
)

// durationBuckets span a fast heartbeat (tens of µs) to a slow /jmx
// read of a large tracker.
var durationBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
}

// serverMetrics are a Server's metrics, its own so that several Servers
// can live in one process.
type serverMetrics struct {
	heartbeats metrics.Counter
	rejected   map[string]*metrics.Counter // by reason; read-only after creation
	refused    refusals                    // 4xx answers of every route
	// added are the writers of other packages' families (AddMetrics);
	// fixed once the Server serves.
	added []func(io.Writer)

	// durations holds only the duration histograms: its exposition is
	// the samples of that one family.
	durations *metrics.Set
	mu        sync.RWMutex
	byRoute   map[routeKey]*metrics.PrometheusHistogram
}

// routeKey is the labels of one duration series. Both come from bounded
// sets (methodLabel, and the routes or unmatchedRoute), so that requests
// cannot grow the number of series.
type routeKey struct{ method, route string }

func newServerMetrics() *serverMetrics {
	m := &serverMetrics{
		rejected:  make(map[string]*metrics.Counter, len(rejectReasons)),
		durations: metrics.NewSet(),
		byRoute:   make(map[routeKey]*metrics.PrometheusHistogram),
	}
	for _, r := range rejectReasons {
		m.rejected[r] = new(metrics.Counter)
	}
	return m
}

// reject counts a refused heartbeat.
func (m *serverMetrics) reject(reason string) {
	c, ok := m.rejected[reason]
	if !ok {
		panic("BUG: namenode: unknown reject reason " + reason)
	}
	c.Inc()
}

// observe records how long a request took. method and route must be
// bounded already (methodLabel, a route pattern or unmatchedRoute).
func (m *serverMetrics) observe(method, route string, took time.Duration) {
	k := routeKey{method, route}
	m.mu.RLock()
	h := m.byRoute[k]
	m.mu.RUnlock()
	if h == nil {
		m.mu.Lock()
		if h = m.byRoute[k]; h == nil {
			name := fmt.Sprintf(`%s{method=%s,route=%s}`, durationFamily, reports.QuoteLabel(method), reports.QuoteLabel(route))
			h = m.durations.NewPrometheusHistogramExt(name, durationBuckets)
			m.byRoute[k] = h
		}
		m.mu.Unlock()
	}
	h.Update(took.Seconds())
}

// writeFamilyHeader writes the # HELP and # TYPE lines of a family.
func writeFamilyHeader(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// writeFamily writes a family of one sample without labels.
func writeFamily[N int | int64 | uint64](w io.Writer, name, typ, help string, v N) {
	writeFamilyHeader(w, name, typ, help)
	fmt.Fprintf(w, "%s %d\n", name, v)
}

// writeCounters writes the heartbeat counters.
func (m *serverMetrics) writeCounters(w io.Writer) {
	writeFamily(w, heartbeatsFamily, "counter", "Heartbeats accepted and applied.", m.heartbeats.Get())
	writeFamilyHeader(w, rejectedFamily, "counter", "Heartbeats refused and not applied, by reason.")
	for _, r := range rejectReasons {
		fmt.Fprintf(w, "%s{reason=%s} %d\n", rejectedFamily, reports.QuoteLabel(r), m.rejected[r].Get())
	}
}

// writeDurations writes the request-duration histograms, once a request
// was timed.
func (m *serverMetrics) writeDurations(w io.Writer) {
	m.mu.RLock()
	n := len(m.byRoute)
	m.mu.RUnlock()
	if n == 0 {
		return
	}
	writeFamilyHeader(w, durationFamily, "histogram", "Time to answer an HTTP request, by method and route.")
	// metrics.Set writes no comment lines unless metrics.ExposeMetadata
	// is on, which slowpeer never turns on.
	m.durations.WritePrometheus(w)
}

// writeStateMetrics writes the gauges read from the tracker and the table
// at now: the slow nodes and the reporters of the top MetricsSlowNodes of
// them (sorted by name), the live and dead DataNodes.
func (s *Server) writeStateMetrics(w io.Writer, now time.Time) {
	// Copied out: nothing is formatted under the tracker's lock.
	top, slow := s.tracker.TopCounts(now, s.cfg.MetricsSlowNodes)
	slices.SortFunc(top, func(a, b tracker.NodeCount) int { return strings.Compare(a.Node, b.Node) })
	writeFamily(w, entriesFamily, "gauge",
		"(slow node, reporter) entries the tracker holds, valid or not yet expired.", s.tracker.Entries())
	writeFamilyHeader(w, reportersFamily, "gauge",
		"Number of nodes that currently report a node slow, for the top slow nodes only "+
			"(slowpeer.namenode.metrics.slow.nodes); a series exists only while the node is among them.")
	for _, c := range top {
		fmt.Fprintf(w, "%s{node=%s} %d\n", reportersFamily, reports.QuoteLabel(c.Node), c.Reporters)
	}
	writeFamily(w, slowNodesFamily, "gauge", "Nodes with at least one valid slow-peer report.", slow)
	s.writeSlowSetMetrics(w)
	s.writeDiskMetrics(w, now)
	live, dead, excluded := s.dataNodeCounts(now)
	writeFamilyHeader(w, dataNodesFamily, "gauge",
		"DataNodes known to the service, by state: live or dead by Hadoop's heartbeat expiry rule, "+
			"or excluded by dfs.hosts.exclude (and then in neither of the others).")
	fmt.Fprintf(w, "%s{state=\"live\"} %d\n%s{state=\"dead\"} %d\n%s{state=\"excluded\"} %d\n",
		dataNodesFamily, live, dataNodesFamily, dead, dataNodesFamily, excluded)
}

// serveMetrics handles GET /metrics.
func (s *Server) serveMetrics(c *gin.Context) {
	c.Header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	c.Status(http.StatusOK)
	s.WriteMetrics(c.Writer)
}

// WriteMetrics writes the Server's metrics in the Prometheus text format,
// every family with its # HELP and # TYPE lines, then the families added
// with AddMetrics.
func (s *Server) WriteMetrics(w io.Writer) {
	bw := bufio.NewWriter(w)
	s.metrics.writeCounters(bw)
	s.metrics.refused.write(bw)
	if l := s.conns.Load(); l != nil {
		writeFamilyHeader(bw, connsFamily, "gauge", "HTTP connections open (slowpeer.namenode.max.connections caps them).")
		fmt.Fprintf(bw, "%s %d\n", connsFamily, l.open())
		writeFamilyHeader(bw, evictedFamily, "counter",
			"HTTP connections closed outside a request to make room under the connection cap.")
		fmt.Fprintf(bw, "%s %d\n", evictedFamily, l.evicted.Load())
	}
	s.writeStateMetrics(bw, s.now())
	s.metrics.writeDurations(bw)
	for _, write := range s.metrics.added {
		write(bw)
	}
	bw.Flush()
}

// AddMetrics adds families of another package to /metrics: write is
// called at every scrape and writes complete families in the Prometheus
// text format, each with its # HELP and # TYPE lines before its samples.
// Their names should start with slowpeer_ and must differ from the
// Server's. Call AddMetrics before Handler, Run or Serve; it panics once
// the Server serves.
func (s *Server) AddMetrics(write func(w io.Writer)) {
	if s.serving.Load() {
		panic("BUG: namenode.Server.AddMetrics called after the server started serving")
	}
	s.metrics.added = append(s.metrics.added, write)
}
