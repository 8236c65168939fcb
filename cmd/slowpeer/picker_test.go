package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// newPickerServer is a Server with a running HiveServer picker on a
// memory store mounted, knowing servers; both read the same fake clock.
func newPickerServer(t *testing.T, servers ...string) (*namenode.Server, *testenv.Clock) {
	t.Helper()
	s, _, clock := newPicker(t, servers...)
	return s, clock
}

// newPicker is newPickerServer that returns the picker too.
func newPicker(t *testing.T, servers ...string) (*namenode.Server, *hiveserver.Picker, *testenv.Clock) {
	t.Helper()
	clock := testenv.NewClock(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	ncfg := namenode.DefaultConfig()
	ncfg.SlowSet = tracker.RawSlowSetConfig()
	ncfg.Now = clock.Now
	ncfg.Logger = slog.New(slog.DiscardHandler)
	s, err := namenode.New(ncfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := hiveserver.DefaultConfig()
	cfg.Servers = servers
	cfg.Now = clock.Now
	cfg.RandIntN = func(int) int { return 0 }
	p, err := hiveserver.New(cfg, &hiveserver.MemoryStore{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	})
	mountPicker(s, p, clock.Now)
	return s, p, clock
}

// serveOne sends one request through s's handler.
func serveOne(s *namenode.Server, method, target, body, contentType string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

// slowReport posts a heartbeat from reporter naming each of peers slow,
// then runs the diagnosis that feeds the slow set, as Serve would.
func slowReport(t *testing.T, s *namenode.Server, reporter string, peers ...string) {
	t.Helper()
	hb := reports.Heartbeat{Node: reporter, SlowPeers: []reports.SlowPeer{}}
	for _, p := range peers {
		hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{Node: p, LatencyMs: 30, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6})
	}
	body, _ := json.Marshal(hb)
	if w := serveOne(s, "POST", namenode.HeartbeatPath, string(body), "application/json"); w.Code != 200 {
		t.Fatalf("heartbeat from %s: %d %s", reporter, w.Code, w.Body)
	}
	s.Diagnose(s.Config().Now())
}

func hookEvent(server, hook, queryID string, ms int64) string {
	return url.Values{"server": {server}, "hook": {hook}, "queryId": {queryID}, "queryStr": {"select%201"},
		"jobName": {"job"}, "timestamp": {fmt.Sprint(ms)}}.Encode()
}

// scrapeSamples reads /metrics into a map from series text to value.
func scrapeSamples(t *testing.T, s *namenode.Server) (string, map[string]float64) {
	t.Helper()
	var b bytes.Buffer
	s.WriteMetrics(&b)
	samples := map[string]float64{}
	for line := range strings.Lines(b.String()) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	return b.String(), samples
}

const formType = "application/x-www-form-urlencoded"

func TestMountPicker(t *testing.T) {
	s, clock := newPickerServer(t, "10.0.0.5:10000", "10.0.0.6:10000")
	send := func(server, hook, queryID string) {
		t.Helper()
		w := serveOne(s, "POST", hiveserver.SendPath, hookEvent(server, hook, queryID, clock.Now().UnixMilli()), formType)
		if w.Code != 200 {
			t.Fatalf("send %s %s: %d %s", hook, queryID, w.Code, w.Body)
		}
	}
	pick := func() (int, hiveserver.Status) {
		t.Helper()
		w := serveOne(s, "GET", hiveserver.PickPath, "", "")
		var st hiveserver.Status
		if w.Code == 200 {
			if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil {
				t.Fatal(err)
			}
		}
		return w.Code, st
	}

	// Two statements run on .5: the idle .6 is picked.
	send("10.0.0.5:10000", "PRE_EXEC_HOOK", "q1")
	send("10.0.0.5:10000", "PRE_EXEC_HOOK", "q2")
	if code, st := pick(); code != 200 || st.Server != "10.0.0.6:10000" {
		t.Fatalf("pick = %d %+v, want the idle 10.0.0.6:10000", code, st)
	}
	// Peers report the DataNode on .6's host slow: .5 is picked though
	// it is busier.
	slowReport(t, s, "10.0.0.2:9866", "10.0.0.6:9866")
	if code, st := pick(); code != 200 || st.Server != "10.0.0.5:10000" || st.Running != 2 {
		t.Fatalf("pick = %d %+v, want 10.0.0.5:10000 with 2 running", code, st)
	}
	w := serveOne(s, "GET", hiveserver.ServersPath, "", "")
	if !strings.Contains(w.Body.String(), `{"server":"10.0.0.6:10000","running":0,"load":0,"slowHost":true}`) {
		t.Fatalf("%s = %s", hiveserver.ServersPath, w.Body)
	}
	// Both hosts slow: none is eligible, 503 with the reason.
	slowReport(t, s, "10.0.0.3:9866", "10.0.0.5:9866")
	if code, _ := pick(); code != 503 {
		t.Fatalf("pick with every host slow = %d, want 503", code)
	}
	// The reports expire: .6 is idle again and wins.
	clock.Advance(s.Config().ReportValidity())
	s.Diagnose(clock.Now())
	if code, st := pick(); code != 200 || st.Server != "10.0.0.6:10000" {
		t.Fatalf("pick after expiry = %d %+v", code, st)
	}

	text, got := scrapeSamples(t, s)
	for series, want := range map[string]float64{
		`slowpeer_hiveserver_running{server="10.0.0.5:10000"}`: 2,
		`slowpeer_hiveserver_running{server="10.0.0.6:10000"}`: 0,
		`slowpeer_hiveserver_events_total`:                     2,
		`slowpeer_hiveserver_picks_total{result="ok"}`:         3,
		`slowpeer_hiveserver_picks_total{result="none"}`:       1,
		// The picker's routes get the Server's duration histogram.
		`slowpeer_http_request_duration_seconds_count{method="GET",route="/v1/hiveservers/pick"}`: 4,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

func TestMountPickerRefusesBadEvents(t *testing.T) {
	s, clock := newPickerServer(t)
	w := serveOne(s, "POST", hiveserver.SendPath, hookEvent("hs:10000", "NOT_A_HOOK", "q1", clock.Now().UnixMilli()), formType)
	if w.Code != 400 {
		t.Fatalf("unknown hook: %d %s", w.Code, w.Body)
	}
	w = serveOne(s, "GET", hiveserver.ServersPath, "", "")
	if strings.TrimSpace(w.Body.String()) != "[]" {
		t.Fatalf("a refused event left a trace: %s", w.Body)
	}
}

// TestPromtoolCheckPickerMetrics runs promtool's linter on a scrape of a
// Server with the picker mounted.
func TestPromtoolCheckPickerMetrics(t *testing.T) {
	promtool := testenv.Command(t, "promtool")
	s, clock := newPickerServer(t, "10.0.0.6:10000")
	serveOne(s, "POST", hiveserver.SendPath, hookEvent("10.0.0.5:10000", "PRE_EXEC_HOOK", "q1", clock.Now().UnixMilli()), formType)
	serveOne(s, "GET", hiveserver.PickPath, "", "")
	slowReport(t, s, "10.0.0.2:9866", "10.0.0.5:9866")
	text, _ := scrapeSamples(t, s)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s\nscrape:\n%s", err, out, text)
	}
}
