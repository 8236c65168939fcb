package namenode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestLimitsConfig(t *testing.T) {
	f := func(edit func(*Config), inErr string) {
		t.Helper()
		c := DefaultConfig()
		edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), inErr) {
			t.Errorf("Validate = %v, want an error with %q", err, inErr)
		}
	}
	f(func(c *Config) { c.MaxDataNodes = 0 }, MaxDataNodesKey)
	f(func(c *Config) { c.MaxTrackerEntries = -1 }, MaxTrackerEntriesKey)
	f(func(c *Config) { c.MaxSlowNodes = 0 }, MaxSlowNodesKey)
	f(func(c *Config) { c.MetricsSlowNodes = -1 }, MetricsSlowNodesKey)
	f(func(c *Config) { c.MaxConnections = 0 }, MaxConnectionsKey)
	f(func(c *Config) { c.MaxPeerLatencies = reports.MaxPeerLatencies + 1 }, MaxPeerLatenciesKey)
	f(func(c *Config) { c.MaxDiagnosisReporters = 0 }, MaxDiagnosisReportersKey)
	f(func(c *Config) { c.MaxDiagnosisReporters, c.MaxPeerLatencies = 1_000_000, 10_000 }, "must be at most")
	f(func(c *Config) { c.HeaderReadTimeout = 0 }, HeaderReadTimeoutKey)
	f(func(c *Config) { c.DataNodeForgetAfter = c.DeadAfter() }, "longer than the dead-node expiry")
}

// Each limit refuses with 429 and a JSON error naming its key, counts the
// refusal, changes nothing, and leaves what was admitted working.
func TestHeartbeatLimits(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) {
		c.MaxDataNodes, c.MaxTrackerEntries, c.MaxSlowNodes = 3, 3, 2
	})
	const a, b, c, d = "10.0.0.1:9866", "10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866"
	mustHeartbeat(t, s, report(a, b, c))
	mustHeartbeat(t, s, report(b, c))
	f := func(hb reports.Heartbeat, reason, key string) {
		t.Helper()
		before := snapshot(s, clock.Now())
		body, _ := json.Marshal(hb)
		w := do(t, s, "POST", HeartbeatPath, string(body))
		wantError(t, w, http.StatusTooManyRequests, key)
		if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused heartbeat changed the state:\n%+v\n%+v", before, after)
		}
		if n := s.metrics.rejected[reason].Get(); n == 0 {
			t.Fatalf("%s not counted", reason)
		}
	}
	f(report(c, a), reasonLimitEntries, MaxTrackerEntriesKey)
	mustHeartbeat(t, s, reports.Heartbeat{Node: c}) // the third node fits
	f(reports.Heartbeat{Node: d}, reasonLimitDataNodes, MaxDataNodesKey)
	// b drops c, which a still names, and names d: a third slow node.
	f(report(b, d), reasonLimitSlowNodes, MaxSlowNodesKey)
	// What was admitted works: a replaces its report within the limits.
	mustHeartbeat(t, s, report(a, b))
	s.Diagnose(clock.Now())
	if got := s.SlowNodes(clock.Now()); !reflect.DeepEqual(got, []string{b, c}) {
		t.Fatalf("SlowNodes = %v", got)
	}
	// A forgotten node makes room.
	clock.Advance(s.Config().DataNodeForgetAfter)
	mustHeartbeat(t, s, reports.Heartbeat{Node: a})
	clock.Advance(time.Second)
	if got := s.Step(clock.Now()); got.Forgotten != 2 {
		t.Fatalf("Step = %+v, want 2 forgotten", got)
	}
	mustHeartbeat(t, s, reports.Heartbeat{Node: d})
}

// The limits of peerLatencies: more cells than MaxPeerLatencies, or a
// reporter that finds every row of the matrix held by reporters live for
// at least as long, is refused with 429 (counted, changing nothing); a
// reporter live for longer takes the newest holder's row; a dead holder
// is the first to go.
func TestPeerLatencyLimits(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.MaxPeerLatencies, c.MaxDiagnosisReporters = 3, 2 })
	row := func(n int, node string, peers ...string) reports.Heartbeat {
		hb := reports.Heartbeat{Node: node, PeerLatencies: []reports.PeerLatency{}}
		for _, p := range peers[:n] {
			hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: p, LatencyMs: 1, Samples: 100})
		}
		return hb
	}
	f := func(hb reports.Heartbeat, reason, key string) {
		t.Helper()
		before := snapshot(s, clock.Now())
		body, _ := json.Marshal(hb)
		wantError(t, do(t, s, "POST", HeartbeatPath, string(body)), http.StatusTooManyRequests, key)
		if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused heartbeat changed the state:\n%+v\n%+v", before, after)
		}
		if n := s.metrics.rejected[reason].Get(); n == 0 {
			t.Fatalf("%s not counted", reason)
		}
	}
	peers := []string{node(10), node(11), node(12), node(13)}
	mustHeartbeat(t, s, reports.Heartbeat{Node: node(0)}) // live from the start
	clock.Advance(time.Second)
	f(row(4, node(1), peers...), reasonLimitPeerLatencies, MaxPeerLatenciesKey)
	mustHeartbeat(t, s, row(3, node(1), peers...))
	clock.Advance(time.Second)
	mustHeartbeat(t, s, row(3, node(2), peers...))
	clock.Advance(time.Second)
	f(row(3, node(3), peers...), reasonLimitReporters, MaxDiagnosisReportersKey)
	mustHeartbeat(t, s, row(3, node(0), peers...)) // live longest: takes node 2's row
	s.Diagnose(clock.Now())
	if n := s.diag.evicted.Load(); n != 1 || s.diag.matrix.Reporters() != 2 {
		t.Fatalf("%d evicted, %d rows; want 1, 2", n, s.diag.matrix.Reporters())
	}
	if !strings.Contains(metricLine(t, s, "slowpeer_diagnosis_rows_evicted_total"), " 1") {
		t.Fatal("eviction not in /metrics")
	}
	// node 1 dies: anyone live takes its row.
	clock.Advance(s.Config().DeadAfter())
	mustHeartbeat(t, s, reports.Heartbeat{Node: node(0)})
	mustHeartbeat(t, s, reports.Heartbeat{Node: node(3)})
	s.Step(clock.Now())
	mustHeartbeat(t, s, row(3, node(3), peers...))
	if n := s.diag.evicted.Load(); n != 2 {
		t.Fatalf("%d evicted, want 2", n)
	}
}

func TestHeartbeatWantsJSON(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	body := `{"node":"10.0.0.1:9866","slowPeers":[]}`
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"} {
		before := snapshot(s, clock.Now())
		w := do(t, s, "POST", HeartbeatPath, body, "Content-Type", ct)
		wantError(t, w, http.StatusUnsupportedMediaType, "want application/json")
		if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
			t.Fatalf("Content-Type %q: the state changed", ct)
		}
	}
	if n := s.metrics.rejected[reasonUnsupportedType].Get(); n != 5 {
		t.Fatalf("%d refusals counted, want 5", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		if w := do(t, s, "POST", HeartbeatPath, body, "Content-Type", ct); w.Code != 200 {
			t.Fatalf("Content-Type %q: %d %s", ct, w.Code, w.Body)
		}
	}
}

// Error answers quote input clipped: a 900 KB node id gives a short body
// and a short log line.
func TestErrorsClipInput(t *testing.T) {
	s, _, logs := newTestServer(t, nil)
	id := strings.Repeat("h", 900_000) + ":9866"
	w := do(t, s, "POST", HeartbeatPath, `{"node":"`+id+`"}`)
	wantError(t, w, 400, "bad host")
	if w.Body.Len() > 200 {
		t.Fatalf("error body of %d bytes: %.300s", w.Body.Len(), w.Body)
	}
	w = do(t, s, "GET", SlowPeersPath+"?top="+strings.Repeat("9", 100_000), "")
	wantError(t, w, 400, "top")
	if w.Body.Len() > 200 {
		t.Fatalf("error body of %d bytes", w.Body.Len())
	}
	if n := len(logs.String()); n > 2000 {
		t.Fatalf("%d bytes of log for two refusals", n)
	}
}

func TestHeadWhereGet(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	extra := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("x")) })
	s.Handle("GET", "/v1/extra", extra)
	// A HEAD of its own after the GET (or before it) changes nothing.
	s.Handle("HEAD", "/v1/extra", extra)
	s.Handle("HEAD", "/v1/head-first", extra)
	s.Handle("GET", "/v1/head-first", extra)
	for _, path := range []string{SlowPeersPath, JMXPath, MetricsPath, DataNodesPath, "/v1/extra", "/v1/head-first"} {
		get, head := do(t, s, "GET", path, ""), do(t, s, "HEAD", path, "")
		if head.Code != 200 || get.Code != 200 {
			t.Errorf("%s: GET %d, HEAD %d", path, get.Code, head.Code)
		}
		if g, h := get.Header().Get("Content-Type"), head.Header().Get("Content-Type"); g != h {
			t.Errorf("%s: HEAD Content-Type %q, GET %q", path, h, g)
		}
	}
	if w := do(t, s, "HEAD", HeartbeatPath, ""); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("HEAD %s: %d, want 405", HeartbeatPath, w.Code)
	}
}

func TestDataNodesPaging(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	var all []string
	for i := range 7 {
		node := fmt.Sprintf("10.0.0.%d:9866", i+1)
		all = append(all, node)
		mustHeartbeat(t, s, reports.Heartbeat{Node: node})
	}
	read := func(target string) ([]string, string) {
		t.Helper()
		w := do(t, s, "GET", target, "")
		if w.Code != 200 {
			t.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
		}
		var rows []dataNodeJSON
		if err := json.Unmarshal(w.Body.Bytes(), &rows); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.Node)
		}
		return ids, w.Header().Get("Link")
	}
	// Without limit: the whole array, no Link.
	if ids, link := read(DataNodesPath); !reflect.DeepEqual(ids, all) || link != "" {
		t.Fatalf("all: %v, Link %q", ids, link)
	}
	// Follow the Link headers.
	var got []string
	target, pages := DataNodesPath+"?limit=3", 0
	for target != "" {
		ids, link := read(target)
		got = append(got, ids...)
		pages++
		target = ""
		if link != "" {
			u, rel, ok := strings.Cut(link, ">; ")
			if !ok || rel != `rel="next"` || !strings.HasPrefix(u, "<"+DataNodesPath+"?") {
				t.Fatalf("Link %q", link)
			}
			target = u[1:]
		}
	}
	if !reflect.DeepEqual(got, all) || pages != 3 {
		t.Fatalf("paged: %v in %d pages", got, pages)
	}
	wantError(t, do(t, s, "GET", DataNodesPath+"?limit=0", ""), 400, "limit")
	wantError(t, do(t, s, "GET", DataNodesPath+"?limit=x", ""), 400, "limit")
}

// Per-node series exist for the top MetricsSlowNodes slow nodes only.
func TestReporterSeriesBounded(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.MetricsSlowNodes = 3 })
	for i := range 50 {
		peers := []string{"10.9.9.9:1"}
		for j := range 5 {
			peers = append(peers, fmt.Sprintf("10.1.%d.%d:1", i, j+1))
		}
		mustHeartbeat(t, s, report(fmt.Sprintf("10.0.0.%d:9866", i+1), peers...))
	}
	text, got := scrape(t, s)
	if n := strings.Count(text, "\nslowpeer_slow_node_reporters{"); n != 3 {
		t.Fatalf("%d reporter series, want 3:\n%s", n, text)
	}
	if got[`slowpeer_slow_node_reporters{node="10.9.9.9:1"}`] != 50 || got["slowpeer_slow_nodes"] != 251 {
		t.Fatalf("top node or slow count wrong:\n%s", text)
	}
}

// Refusals are logged as one summary line every summaryEvery, not one
// line each.
func TestRefusalSummary(t *testing.T) {
	s, clock, logs := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	s.Step(clock.Now())
	for range 1000 {
		do(t, s, "POST", HeartbeatPath, `{"node":"10.0.0.1:9866"}`, "Authorization", "Bearer bad")
	}
	for range 3 {
		do(t, s, "GET", "/nope", "")
	}
	clock.Advance(summaryEvery / 2)
	s.Step(clock.Now())
	if strings.Contains(logs.String(), "refused") {
		t.Fatal("summary logged before its period")
	}
	clock.Advance(summaryEvery / 2)
	s.Step(clock.Now())
	want := `level=WARN msg="refused 1003 requests in the last 10s: 401×1000, 404×3"`
	if n := strings.Count(logs.String(), want); n != 1 {
		t.Fatalf("summary logged %d times, want once:\n%.2000s", n, logs)
	}
	if n := strings.Count(logs.String(), "level=INFO"); n != 0 {
		t.Fatalf("%d Info lines for refusals", n)
	}
	clock.Advance(summaryEvery)
	s.Step(clock.Now())
	if n := strings.Count(logs.String(), "refused"); n != 1 {
		t.Fatal("a summary of nothing was logged")
	}
	_, got := scrape(t, s)
	if got[`slowpeer_http_requests_refused_total{code="401"}`] != 1000 || got[`slowpeer_heartbeats_rejected_total{reason="unauthorized"}`] != 1000 {
		t.Fatalf("refusals not counted: %v", got)
	}
}

// Any limit and after: a JSON array of nodes sorted after after, at most
// limit of them, or a 400 JSON error.
func FuzzDataNodesQuery(f *testing.F) {
	f.Add("3", "10.0.0.2:9866")
	f.Add("", "")
	f.Add("-1", "\xff")
	f.Add("99999999999999999999", "zz")
	s, _, _ := newTestServer(f, nil)
	for i := range 5 {
		mustHeartbeat(f, s, reports.Heartbeat{Node: fmt.Sprintf("10.0.0.%d:9866", i+1)})
	}
	f.Fuzz(func(t *testing.T, limit, after string) {
		q := url.Values{"after": {after}}
		if limit != "" {
			q.Set("limit", limit)
		}
		w := do(t, s, "GET", DataNodesPath+"?"+q.Encode(), "")
		if w.Code == 400 {
			wantError(t, w, 400, "limit")
			return
		}
		var rows []dataNodeJSON
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &rows) != nil {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		for i, r := range rows {
			if r.Node <= after || i > 0 && r.Node <= rows[i-1].Node {
				t.Fatalf("rows %v after %q", rows, after)
			}
		}
	})
}
