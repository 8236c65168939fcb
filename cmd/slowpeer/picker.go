package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// mountPicker serves the HiveServer picker p beside the slow-peer API of
// srv: the hook endpoint POST /rest/hiveserver/send (behind the bearer
// token like every POST), GET /v1/hiveservers and GET /v1/hiveservers/pick,
// which keep new statements away from the hosts of srv.AvoidedHosts (slow
// or excluded); and its families on /metrics. now is the clock both read
// (time.Now outside tests). Call it before srv serves.
func mountPicker(srv *namenode.Server, p *hiveserver.Picker, now func() time.Time) {
	slow := func() []string { return srv.AvoidedHosts(now()) }
	srv.Handle(http.MethodPost, hiveserver.SendPath, p.SendHandler())
	srv.Handle(http.MethodGet, hiveserver.ServersPath, p.ServersHandler(slow))
	srv.Handle(http.MethodGet, hiveserver.PickPath, p.PickHandler(slow))
	srv.AddMetrics(func(w io.Writer) {
		t := now()
		writePickerMetrics(w, p.Servers(t, srv.AvoidedHosts(t)), p.Counters())
	})
}

// pickerGauges are the picker's per-HiveServer families.
var pickerGauges = []struct {
	name, help string
	value      func(hiveserver.Status) float64
}{
	{"slowpeer_hiveserver_running",
		"Statements running on a HiveServer: started, not ended, younger than the query timeout.",
		func(st hiveserver.Status) float64 { return float64(st.Running) }},
	{"slowpeer_hiveserver_load_seconds",
		"Expected remaining work on a HiveServer, in seconds, from the history of its statements' job names.",
		func(st hiveserver.Status) float64 { return st.LoadSeconds }},
	{"slowpeer_hiveserver_lost_statements",
		"Statements on a HiveServer that started and never ended within the query timeout.",
		func(st hiveserver.Status) float64 { return float64(st.Lost) }},
	{"slowpeer_hiveserver_slow_host",
		"1 when the picker avoids the HiveServer's host: the host of a slow node, or one dfs.hosts.exclude names.",
		func(st hiveserver.Status) float64 {
			if st.SlowHost {
				return 1
			}
			return 0
		}},
}

// writePickerMetrics writes the picker's families, each with its # HELP
// and # TYPE: one series per HiveServer and gauge, then the counters.
func writePickerMetrics(w io.Writer, servers []hiveserver.Status, c hiveserver.Counters) {
	var b bytes.Buffer
	header := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
	}
	for _, g := range pickerGauges {
		header(g.name, "gauge", g.help)
		for _, st := range servers {
			fmt.Fprintf(&b, "%s{server=%s} %g\n", g.name, reports.QuoteLabel(st.Server), g.value(st))
		}
	}
	header("slowpeer_hiveserver_events_total", "counter", "Hook events stored.")
	fmt.Fprintf(&b, "slowpeer_hiveserver_events_total %d\n", c.Events)
	header("slowpeer_hiveserver_events_refused_total", "counter",
		"Hook events refused because their HiveServer is not known (a service without an auth token).")
	fmt.Fprintf(&b, "slowpeer_hiveserver_events_refused_total %d\n", c.EventsRefused)
	header("slowpeer_hiveserver_picks_total", "counter",
		"Picks answered, by result (ok, or none when no HiveServer was eligible).")
	fmt.Fprintf(&b, "slowpeer_hiveserver_picks_total{result=\"ok\"} %d\n", c.Picks)
	fmt.Fprintf(&b, "slowpeer_hiveserver_picks_total{result=\"none\"} %d\n", c.PicksFailed)
	w.Write(b.Bytes())
}
