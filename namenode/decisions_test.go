package namenode

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// logLines returns the lines of logs whose message is msg.
func logLines(logs *logBuffer, msg string) []string {
	var out []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="`+msg+`"`) {
			out = append(out, l)
		}
	}
	return out
}

// TestSlowSetLogAndView: a slow sender found by the diagnosis enters the
// slow set after enter-after; its entry is one log line with why (kind,
// pairs, latency) and counted; /v1/slowset gives kind, pairs, since, the
// agent's HTTP address and a history a minute; it leaves after
// leave-after, again one line, counted, and its history goes.
func TestSlowSetLogAndView(t *testing.T) {
	s, clock, logs := newTestServer(t, func(c *Config) {
		c.SlowSet = tracker.SlowSetConfig{EnterAfter: 2 * time.Minute, EnterReporters: 2, LeaveAfter: 10 * time.Minute}
	})
	const n = 8
	slowSender := func(from, to int) float64 {
		if from == 2 {
			return 5
		}
		return 0.1
	}
	t0 := clock.Now()
	for range 3 {
		clusterBeats(t, s, n, slowSender)
		mustHeartbeat(t, s, reports.Heartbeat{Node: node(2), HTTPAddress: "10.0.0.3:9864"})
		s.Diagnose(clock.Now())
		clock.Advance(time.Minute)
	}
	entered := logLines(logs, "slow set entered")
	if len(entered) != 1 {
		t.Fatalf("entries logged: %q", entered)
	}
	for _, want := range []string{"level=WARN", "set=nodes", "change=entered", "node=" + node(2), "kind=outbound", "pairs=7", "latencyMs=", "medianMs="} {
		if !strings.Contains(entered[0], want) {
			t.Errorf("entry line %q lacks %q", entered[0], want)
		}
	}
	if _, m := scrape(t, s); m[`slowpeer_slow_set_changes_total{set="nodes",change="entered"}`] != 1 ||
		m[`slowpeer_slow_set_changes_total{set="nodes",change="left"}`] != 0 {
		t.Fatalf("changes counted: %v", m)
	}

	var view struct {
		Nodes []map[string]any `json:"nodes"`
		Links []map[string]any `json:"links"`
	}
	w := do(t, s, "GET", SlowSetPath, "")
	if err := json.Unmarshal(w.Body.Bytes(), &view); err != nil || w.Code != 200 {
		t.Fatalf("GET %s: %d %s: %v", SlowSetPath, w.Code, w.Body, err)
	}
	if len(view.Nodes) != 1 || view.Links == nil || len(view.Links) != 0 {
		t.Fatalf("slow set %s, want one node and no link", w.Body)
	}
	e := view.Nodes[0]
	since := float64(t0.Add(2 * time.Minute).UnixMilli())
	if e["node"] != node(2) || e["kind"] != "outbound" || e["pairs"] != 7.0 || e["since"] != since ||
		e["foundSince"] != float64(t0.UnixMilli()) || e["httpAddress"] != "10.0.0.3:9864" || e["latencyMs"].(float64) < 1 {
		t.Fatalf("entry %v", e)
	}
	if h := e["history"].([]any); len(h) != 1 || h[0].(map[string]any)["pairs"] != 7.0 {
		t.Fatalf("history %v, want the one minute it has been a member", h)
	}

	// Healthy from now on: a point a minute with no pairs, then it leaves.
	for range 9 {
		clusterBeats(t, s, n, func(int, int) float64 { return 0.1 })
		s.Diagnose(clock.Now())
		clock.Advance(time.Minute)
	}
	nodes, _ := s.SlowSets(clock.Now())
	if len(nodes) != 1 || len(nodes[0].History) != 10 || nodes[0].History[9].Pairs != 0 || nodes[0].Kind != "outbound" {
		t.Fatalf("in the quiet period: %+v", nodes)
	}
	clusterBeats(t, s, n, func(int, int) float64 { return 0.1 })
	s.Diagnose(clock.Now())
	left := logLines(logs, "slow set left")
	if len(left) != 1 || !strings.Contains(left[0], "node="+node(2)) || !strings.Contains(left[0], `reason="not found for 10m0s"`) {
		t.Fatalf("exits logged: %q", left)
	}
	if nodes, _ := s.SlowSets(clock.Now()); len(nodes) != 0 || len(s.decisions.hist) != 0 || len(s.decisions.why) != 0 {
		t.Fatalf("after it left: %+v, %d histories, %d reasons", nodes, len(s.decisions.hist), len(s.decisions.why))
	}
}

// TestSlowSetReportsKind: nodes counted by the reports of agents without
// peerLatencies are in the slow set as kind "reports".
func TestSlowSetReportsKind(t *testing.T) {
	s, clock, logs := newTestServer(t, nil) // the raw slow set: enters at once
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
	s.Diagnose(clock.Now())
	nodes, _ := s.SlowSets(clock.Now())
	if len(nodes) != 1 || nodes[0].Kind != KindReports || nodes[0].Pairs != 1 || nodes[0].LatencyMs != 0 {
		t.Fatalf("slow set %+v", nodes)
	}
	if l := logLines(logs, "slow set entered"); len(l) != 1 || !strings.Contains(l[0], "kind=reports pairs=1") {
		t.Fatalf("entry logged: %q", l)
	}
}

// TestHistoryBounded: a point a minute, at most HistoryPoints of them.
func TestHistoryBounded(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	for range HistoryPoints + 20 {
		mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
		s.Diagnose(clock.Now())
		s.Diagnose(clock.Now().Add(time.Second)) // the same minute: one point
		clock.Advance(time.Minute)
	}
	nodes, _ := s.SlowSets(clock.Now())
	h := nodes[0].History
	if len(h) != HistoryPoints || !h[len(h)-1].At.Equal(clock.Now().Add(-time.Minute).Truncate(HistoryStep)) {
		t.Fatalf("%d points, the last at %v", len(h), h[len(h)-1].At)
	}
}
