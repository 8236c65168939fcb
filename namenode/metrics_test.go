package namenode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func scrape(t *testing.T, s *Server) (string, map[string]float64) {
	t.Helper()
	w := do(t, s, "GET", MetricsPath, "")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	samples, err := parseExposition(w.Body.String())
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, w.Body)
	}
	return w.Body.String(), samples
}

func TestMetrics(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	const a, b, c, slow = "10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866", "10.0.0.5:9866"
	mustHeartbeat(t, s, report(a, slow, c))
	mustHeartbeat(t, s, report(b, slow))
	do(t, s, "POST", HeartbeatPath, `{"node":"x"}`)
	do(t, s, "POST", HeartbeatPath, `{`)
	do(t, s, "GET", SlowPeersPath, "")
	clock.Advance(s.Config().DeadAfter() / 2)
	mustHeartbeat(t, s, reports.Heartbeat{Node: c})
	clock.Advance(s.Config().DeadAfter()/2 + time.Second)

	text, got := scrape(t, s)
	want := map[string]float64{
		`slowpeer_heartbeats_received_total`:                                                       3,
		`slowpeer_heartbeats_rejected_total{reason="invalid"}`:                                     1,
		`slowpeer_heartbeats_rejected_total{reason="malformed"}`:                                   1,
		`slowpeer_heartbeats_rejected_total{reason="unauthorized"}`:                                0,
		`slowpeer_slow_nodes`:                                                                      2,
		`slowpeer_slow_node_reporters{node="10.0.0.5:9866"}`:                                       2,
		`slowpeer_slow_node_reporters{node="10.0.0.4:9866"}`:                                       1,
		`slowpeer_tracker_entries`:                                                                 3,
		`slowpeer_datanodes{state="live"}`:                                                         1,
		`slowpeer_datanodes{state="dead"}`:                                                         2,
		`slowpeer_http_request_duration_seconds_count{method="POST",route="/v1/heartbeat"}`:        5,
		`slowpeer_http_request_duration_seconds_bucket{method="GET",route="/slowpeers",le="+Inf"}`: 1,
	}
	for series, v := range want {
		if g, ok := got[series]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", series, g, ok, v)
		}
	}
	if t.Failed() {
		t.Log(text)
	}

	// The reporters series of a node goes away when it stops being slow:
	// by a new report, or by expiry.
	mustHeartbeat(t, s, report(a, slow))
	_, got = scrape(t, s)
	if _, ok := got[`slowpeer_slow_node_reporters{node="10.0.0.4:9866"}`]; ok {
		t.Fatal("series of a node no longer reported is still there")
	}
	clock.Advance(s.Config().ReportValidity())
	text, got = scrape(t, s)
	if strings.Contains(text, "slowpeer_slow_node_reporters{") || got["slowpeer_slow_nodes"] != 0 {
		t.Fatalf("series of expired reports still there:\n%s", text)
	}
}

func TestMetricsPerServer(t *testing.T) {
	s1, _, _ := newTestServer(t, nil)
	s2, _, _ := newTestServer(t, nil)
	mustHeartbeat(t, s1, reports.Heartbeat{Node: "10.0.0.2:9866"})
	_, got := scrape(t, s2)
	if got["slowpeer_heartbeats_received_total"] != 0 {
		t.Fatal("two Servers share their metrics")
	}
}

// TestPromtoolCheckMetrics runs promtool's linter on a real scrape. CI has
// promtool; without it on PATH the test is skipped, unless
// SLOWPEER_REQUIRE_SERVICES=1 (CI), where it fails.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("SLOWPEER_REQUIRE_SERVICES") == "1" {
			t.Fatal("promtool not on PATH and SLOWPEER_REQUIRE_SERVICES=1")
		}
		t.Skip("promtool not on PATH")
	}
	s, clock := newPickerServer(t, "10.0.0.6:10000")
	do(t, s, "POST", "/rest/hiveserver/send", hookEvent("10.0.0.5:10000", "PRE_EXEC_HOOK", "q1", clock.Now().UnixMilli()),
		"Content-Type", "application/x-www-form-urlencoded")
	do(t, s, "GET", "/v1/hiveservers/pick", "")
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
	do(t, s, "POST", HeartbeatPath, `{`)
	do(t, s, "GET", JMXPath, "")
	text, _ := scrape(t, s)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s\nscrape:\n%s", err, out, text)
	}
}

func BenchmarkWriteMetrics(b *testing.B) {
	s, _, _ := newTestServer(b, nil)
	for i := range 1000 {
		mustHeartbeat(b, s, report(fmt.Sprintf("10.1.%d.%d:9866", i/250, i%250+1),
			fmt.Sprintf("10.2.0.%d:9866", i%50+1), fmt.Sprintf("10.2.1.%d:9866", i%70+1)))
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		s.WriteMetrics(&buf)
	}
}
