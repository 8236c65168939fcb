package hiveserver

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// WriteMetrics writes the Picker's metric families in the Prometheus text
// format, each with its # HELP and # TYPE: one series per HiveServer of
// Servers(now, slowHosts) for each gauge, then the counters. The service
// adds it to its /metrics (namenode.Server.AddMetrics).
func (p *Picker) WriteMetrics(w io.Writer, now time.Time, slowHosts []string) {
	servers, c := p.Servers(now, slowHosts), p.Counters()
	var b bytes.Buffer
	for _, f := range metricFamilies {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		f.write(&b, f.name, servers, c)
	}
	w.Write(b.Bytes())
}

// metricFamily is one family of the Picker's: its header, and how it
// writes its samples.
type metricFamily struct {
	name, typ, help string
	write           func(b *bytes.Buffer, name string, servers []Status, c Counters)
}

// perServer is a gauge family with one series per HiveServer.
func perServer(value func(Status) float64) func(*bytes.Buffer, string, []Status, Counters) {
	return func(b *bytes.Buffer, name string, servers []Status, _ Counters) {
		for _, st := range servers {
			fmt.Fprintf(b, "%s{server=%s} %g\n", name, reports.QuoteLabel(st.Server), value(st))
		}
	}
}

// metricFamilies are the Picker's families, in the order of a scrape.
var metricFamilies = []metricFamily{
	{"slowpeer_hiveserver_running", "gauge",
		"Statements running on a HiveServer: started, not ended, younger than the query timeout.",
		perServer(func(st Status) float64 { return float64(st.Running) })},
	{"slowpeer_hiveserver_load_seconds", "gauge",
		"Expected remaining work on a HiveServer, in seconds, from the history of its statements' job names.",
		perServer(func(st Status) float64 { return st.LoadSeconds })},
	{"slowpeer_hiveserver_lost_statements", "gauge",
		"Statements on a HiveServer that started and never ended within the query timeout.",
		perServer(func(st Status) float64 { return float64(st.Lost) })},
	{"slowpeer_hiveserver_slow_host", "gauge",
		"1 when the picker avoids the HiveServer's host: the host of a slow node, or one dfs.hosts.exclude names.",
		perServer(func(st Status) float64 {
			if st.SlowHost {
				return 1
			}
			return 0
		})},
	{"slowpeer_hiveserver_events_total", "counter", "Hook events stored.",
		func(b *bytes.Buffer, name string, _ []Status, c Counters) {
			fmt.Fprintf(b, "%s %d\n", name, c.Events)
		}},
	{"slowpeer_hiveserver_events_refused_total", "counter",
		"Hook events refused because their HiveServer is not known (a service without an auth token).",
		func(b *bytes.Buffer, name string, _ []Status, c Counters) {
			fmt.Fprintf(b, "%s %d\n", name, c.EventsRefused)
		}},
	{"slowpeer_hiveserver_picks_total", "counter",
		"Picks answered, by result (ok, or none when no HiveServer was eligible).",
		func(b *bytes.Buffer, name string, _ []Status, c Counters) {
			fmt.Fprintf(b, "%s{result=\"ok\"} %d\n%s{result=\"none\"} %d\n", name, c.Picks, name, c.PicksFailed)
		}},
}
