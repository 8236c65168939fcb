package hiveserver

import (
	"strings"
	"testing"
	"time"
)

// TestWriteMetrics pins the Picker's exposition: every family's header,
// one series per HiveServer for the gauges, the counters.
func TestWriteMetrics(t *testing.T) {
	p := openPicker(t, &MemoryStore{}, Config{Servers: []string{"idle.example:10000"}})
	now := t0.Add(time.Hour)
	ingest(t, p,
		ev("a.example:10000", PreExec, "h1", "etl", at(0)), ev("a.example:10000", PostExec, "h1", "etl", at(10*time.Minute)),
		ev("a.example:10000", PreExec, "r1", "etl", now.Add(-2*time.Minute).UnixMilli()),
	)
	if _, err := p.Pick(now, []string{"idle.example"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Pick(now, []string{"idle.example", "a.example"}); err == nil {
		t.Fatal("picked among slow hosts only")
	}
	var b strings.Builder
	p.WriteMetrics(&b, now, []string{"idle.example"})
	want := `# HELP slowpeer_hiveserver_running Statements running on a HiveServer: started, not ended, younger than the query timeout.
# TYPE slowpeer_hiveserver_running gauge
slowpeer_hiveserver_running{server="a.example:10000"} 1
slowpeer_hiveserver_running{server="idle.example:10000"} 0
# HELP slowpeer_hiveserver_load_seconds Expected remaining work on a HiveServer, in seconds, from the history of its statements' job names.
# TYPE slowpeer_hiveserver_load_seconds gauge
slowpeer_hiveserver_load_seconds{server="a.example:10000"} 480
slowpeer_hiveserver_load_seconds{server="idle.example:10000"} 0
# HELP slowpeer_hiveserver_lost_statements Statements on a HiveServer that started and never ended within the query timeout.
# TYPE slowpeer_hiveserver_lost_statements gauge
slowpeer_hiveserver_lost_statements{server="a.example:10000"} 0
slowpeer_hiveserver_lost_statements{server="idle.example:10000"} 0
# HELP slowpeer_hiveserver_slow_host 1 when the picker avoids the HiveServer's host: the host of a slow node, or one dfs.hosts.exclude names.
# TYPE slowpeer_hiveserver_slow_host gauge
slowpeer_hiveserver_slow_host{server="a.example:10000"} 0
slowpeer_hiveserver_slow_host{server="idle.example:10000"} 1
# HELP slowpeer_hiveserver_events_total Hook events stored.
# TYPE slowpeer_hiveserver_events_total counter
slowpeer_hiveserver_events_total 3
# HELP slowpeer_hiveserver_events_refused_total Hook events refused because their HiveServer is not known (a service without an auth token).
# TYPE slowpeer_hiveserver_events_refused_total counter
slowpeer_hiveserver_events_refused_total 0
# HELP slowpeer_hiveserver_picks_total Picks answered, by result (ok, or none when no HiveServer was eligible).
# TYPE slowpeer_hiveserver_picks_total counter
slowpeer_hiveserver_picks_total{result="ok"} 1
slowpeer_hiveserver_picks_total{result="none"} 1
`
	if got := b.String(); got != want {
		t.Errorf("WriteMetrics:\n%s\nwant:\n%s", got, want)
	}
}
