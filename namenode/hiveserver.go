package namenode

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// hiveFamilies are the series the HiveServer picker adds to /metrics.
var hiveFamilies = map[string]metricHelp{
	"slowpeer_hiveserver_running": {"gauge",
		"Statements running on a HiveServer: started, not ended, younger than the query timeout."},
	"slowpeer_hiveserver_load_seconds": {"gauge",
		"Expected remaining work on a HiveServer, in seconds, from the history of its statements' job names."},
	"slowpeer_hiveserver_lost_statements": {"gauge",
		"Statements on a HiveServer that started and never ended within the query timeout."},
	"slowpeer_hiveserver_slow_host": {"gauge",
		"1 when the HiveServer's host is among the slow nodes the picker avoids."},
	"slowpeer_hiveserver_events_total": {"counter",
		"Hook events stored."},
	"slowpeer_hiveserver_picks_total": {"counter",
		"Picks answered, by result (ok, or none when no HiveServer was eligible)."},
}

// MountPicker serves the HiveServer picker p beside the slow-peer API: the
// hook endpoint POST /rest/hiveserver/send (behind the bearer token like
// every POST), GET /v1/hiveservers and GET /v1/hiveservers/pick, which keep
// new statements away from the hosts of SlowHosts; and its series on
// /metrics. Call it before the Server serves.
func (s *Server) MountPicker(p *hiveserver.Picker) {
	slow := func() []string { return s.SlowHosts(s.now()) }
	s.Mount(func(r gin.IRouter) {
		r.POST(hiveserver.SendPath, gin.WrapH(p.SendHandler()))
		r.GET(hiveserver.ServersPath, gin.WrapH(p.ServersHandler(slow)))
		r.GET(hiveserver.PickPath, gin.WrapH(p.PickHandler(slow)))
	})
	s.mountMetrics(hiveFamilies, func(w io.Writer, now time.Time) {
		writePickerMetrics(w, p.Servers(now, s.SlowHosts(now)), p.Counters())
	})
}

// writePickerMetrics writes the picker's series: one per HiveServer and
// family, then the counters.
func writePickerMetrics(w io.Writer, servers []hiveserver.Status, c hiveserver.Counters) {
	var b bytes.Buffer
	for _, f := range []struct {
		name  string
		value func(hiveserver.Status) float64
	}{
		{"slowpeer_hiveserver_running", func(st hiveserver.Status) float64 { return float64(st.Running) }},
		{"slowpeer_hiveserver_load_seconds", func(st hiveserver.Status) float64 { return st.LoadSeconds }},
		{"slowpeer_hiveserver_lost_statements", func(st hiveserver.Status) float64 { return float64(st.Lost) }},
		{"slowpeer_hiveserver_slow_host", func(st hiveserver.Status) float64 {
			if st.SlowHost {
				return 1
			}
			return 0
		}},
	} {
		for _, st := range servers {
			fmt.Fprintf(&b, "%s{server=%s} %g\n", f.name, labelValue(st.Server), f.value(st))
		}
	}
	fmt.Fprintf(&b, "slowpeer_hiveserver_events_total %d\n", c.Events)
	fmt.Fprintf(&b, "slowpeer_hiveserver_picks_total{result=\"ok\"} %d\n", c.Picks)
	fmt.Fprintf(&b, "slowpeer_hiveserver_picks_total{result=\"none\"} %d\n", c.PicksFailed)
	w.Write(b.Bytes())
}
