package namenode

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
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

// TestPromtoolCheckMetrics runs promtool's linter on a real scrape of
// the Server's own families, and of one added with AddMetrics.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testenv.Command(t, "promtool")
	s, _, _ := newTestServer(t, nil)
	s.AddMetrics(func(w io.Writer) {
		io.WriteString(w, "# HELP slowpeer_test_things Things a test counts.\n# TYPE slowpeer_test_things gauge\nslowpeer_test_things 3\n")
	})
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
	do(t, s, "POST", HeartbeatPath, `{`)
	do(t, s, "GET", JMXPath, "")
	do(t, s, "BREW", "/coffee", "")
	text, got := scrape(t, s)
	if got["slowpeer_test_things"] != 3 {
		t.Fatalf("added family missing:\n%s", text)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s\nscrape:\n%s", err, out, text)
	}
}

func TestAddMetricsAfterServingPanics(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	s.Handler()
	defer func() {
		if recover() == nil {
			t.Fatal("AddMetrics after Handler did not panic")
		}
	}()
	s.AddMetrics(func(io.Writer) {})
}

// TestDurationSeriesBounded sends hundreds of invented methods and paths:
// the duration histogram gets one series per (standard method or
// "other", route pattern or "unmatched"), however many requests come, and
// whether or not they pass the token check.
func TestDurationSeriesBounded(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken = "s3cret" })
	for i := range 500 {
		do(t, s, fmt.Sprintf("M%dX", i), fmt.Sprintf("/scan/%d", i), "")
		do(t, s, fmt.Sprintf("Q%d", i), HeartbeatPath, "{}")
		do(t, s, "GET", fmt.Sprintf("/nope/%d?x=%d", i, i), "")
		do(t, s, "POST", fmt.Sprintf("/v1/heartbeat/%d", i), "{}")
	}
	_, got := scrape(t, s)
	var series []string
	for name := range got {
		if strings.HasPrefix(name, "slowpeer_http_request_duration_seconds_count{") {
			series = append(series, name)
		}
	}
	slices.Sort(series)
	want := []string{
		`slowpeer_http_request_duration_seconds_count{method="GET",route="unmatched"}`,
		`slowpeer_http_request_duration_seconds_count{method="POST",route="unmatched"}`,
		`slowpeer_http_request_duration_seconds_count{method="other",route="unmatched"}`,
	}
	if !slices.Equal(series, want) {
		t.Fatalf("duration series %q, want %q", series, want)
	}
	if n := got[want[2]]; n != 1000 {
		t.Fatalf("%s = %v, want 1000", want[2], n)
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
