package namenode

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/gin-gonic/gin"
)

// metricHelp describes one metric family for the # HELP and # TYPE lines.
type metricHelp struct {
	typ  string
	help string
}

// The families the Server exports. Every name is prefixed slowpeer_.
var metricFamilies = map[string]metricHelp{
	"slowpeer_heartbeats_received_total": {"counter",
		"Heartbeats accepted and applied."},
	"slowpeer_heartbeats_rejected_total": {"counter",
		"Heartbeats refused and not applied, by reason."},
	"slowpeer_slow_nodes": {"gauge",
		"Nodes with at least one valid slow-peer report."},
	"slowpeer_slow_node_reporters": {"gauge",
		"Number of nodes that currently report a node slow; a series exists only while the node is slow."},
	"slowpeer_tracker_entries": {"gauge",
		"(slow node, reporter) entries the tracker holds, valid or not yet expired."},
	"slowpeer_datanodes": {"gauge",
		"DataNodes known to the service, by state (live or dead, by Hadoop's heartbeat expiry rule)."},
	"slowpeer_http_request_duration_seconds": {"histogram",
		"Time to answer an HTTP request, by method and route."},
}

// durationBuckets span a fast heartbeat (tens of µs) to a slow /jmx
// read of a large tracker.
var durationBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
}

// serverMetrics are a Server's metrics, in a metrics.Set of its own so that
// several Servers can live in one process.
type serverMetrics struct {
	set        *metrics.Set
	families   map[string]metricHelp // metricFamilies and the mounted ones; fixed once serving
	heartbeats *metrics.Counter
	rejected   map[string]*metrics.Counter // by reason; read-only after creation

	mu        sync.RWMutex
	durations map[routeKey]*metrics.PrometheusHistogram
}

type routeKey struct{ method, route string }

func newServerMetrics(s *Server) *serverMetrics {
	m := &serverMetrics{
		set:       metrics.NewSet(),
		families:  maps.Clone(metricFamilies),
		rejected:  make(map[string]*metrics.Counter, len(rejectReasons)),
		durations: make(map[routeKey]*metrics.PrometheusHistogram),
	}
	m.heartbeats = m.set.NewCounter("slowpeer_heartbeats_received_total")
	for _, r := range rejectReasons {
		m.rejected[r] = m.set.NewCounter(`slowpeer_heartbeats_rejected_total{reason="` + r + `"}`)
	}
	// The series that come and go with the tracker and the table are
	// written at scrape time.
	m.set.RegisterMetricsWriter(func(w io.Writer) { s.writeStateMetrics(w, s.now()) })
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

// observe records how long a request to route took.
func (m *serverMetrics) observe(method, route string, took time.Duration) {
	k := routeKey{method, route}
	m.mu.RLock()
	h := m.durations[k]
	m.mu.RUnlock()
	if h == nil {
		m.mu.Lock()
		if h = m.durations[k]; h == nil {
			name := fmt.Sprintf(`slowpeer_http_request_duration_seconds{method=%s,route=%s}`,
				labelValue(method), labelValue(route))
			h = m.set.NewPrometheusHistogramExt(name, durationBuckets)
			m.durations[k] = h
		}
		m.mu.Unlock()
	}
	h.Update(took.Seconds())
}

// writeStateMetrics writes the gauges read from the tracker and the table
// at now: the slow nodes and their reporters, the live and dead DataNodes.
func (s *Server) writeStateMetrics(w io.Writer, now time.Time) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "slowpeer_tracker_entries %d\n", s.tracker.Entries())
	counts := s.tracker.Counts(now) // copied out: nothing is formatted under the tracker's lock
	for _, c := range counts {
		fmt.Fprintf(&b, "slowpeer_slow_node_reporters{node=%s} %d\n", labelValue(c.Node), c.Reporters)
	}
	fmt.Fprintf(&b, "slowpeer_slow_nodes %d\n", len(counts))
	live, dead := s.nodes.Counts(now)
	fmt.Fprintf(&b, "slowpeer_datanodes{state=\"live\"} %d\nslowpeer_datanodes{state=\"dead\"} %d\n", live, dead)
	w.Write(b.Bytes())
}

// labelValue quotes a label value as the Prometheus text format wants.
func labelValue(v string) string {
	return `"` + labelEscaper.Replace(v) + `"`
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// serveMetrics handles GET /metrics.
func (s *Server) serveMetrics(c *gin.Context) {
	c.Header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	c.Status(200)
	s.WriteMetrics(c.Writer)
}

// WriteMetrics writes the Server's metrics in the Prometheus text format,
// with # HELP and # TYPE lines for every family.
func (s *Server) WriteMetrics(w io.Writer) {
	var b bytes.Buffer
	s.metrics.set.WritePrometheus(&b)
	writeWithMetadata(w, b.Bytes(), s.metrics.families)
}

// writeWithMetadata copies the exposition text, dropping the comments it
// has and putting # HELP and # TYPE before the first sample of each family
// found in families. The families must come in contiguous runs, as
// metrics.Set writes them.
func writeWithMetadata(w io.Writer, text []byte, families map[string]metricHelp) {
	out := bufio.NewWriter(w)
	prev := ""
	for line := range bytes.Lines(text) {
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		if fam, h, ok := familyOf(line, families); ok && fam != prev {
			fmt.Fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", fam, h.help, fam, h.typ)
			prev = fam
		}
		out.Write(line)
	}
	out.Flush()
}

// familyOf finds the family of a sample line: its metric name, or for a
// histogram the name without _bucket, _sum or _count.
func familyOf(line []byte, families map[string]metricHelp) (string, metricHelp, bool) {
	end := bytes.IndexAny(line, "{ ")
	if end < 0 {
		return "", metricHelp{}, false
	}
	name := string(line[:end])
	if h, ok := families[name]; ok {
		return name, h, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if h, ok := families[base]; ok && h.typ == "histogram" {
				return base, h, true
			}
		}
	}
	return "", metricHelp{}, false
}

// mountMetrics adds to /metrics the series that write writes at each
// scrape, for a mounted component. write gets the scrape's time and writes
// complete lines, each family's series together; families gives their
// # HELP and # TYPE. Like Mount, it must be called before the Server serves.
func (s *Server) mountMetrics(families map[string]metricHelp, write func(w io.Writer, now time.Time)) {
	if s.serving.Load() {
		panic("BUG: namenode.Server: metrics mounted after the server started serving")
	}
	maps.Copy(s.metrics.families, families)
	s.metrics.set.RegisterMetricsWriter(func(w io.Writer) { write(w, s.now()) })
}
