package namenode

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// fakeClock is the clock the namenode tests move by hand.
type fakeClock = testenv.Clock

// logBuffer collects a Server's log records for a test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newTestServer returns a Server on a fake clock, logging into a buffer.
// edit, if not nil, changes the configuration first.
func newTestServer(t testing.TB, edit func(*Config)) (*Server, *fakeClock, *logBuffer) {
	t.Helper()
	clock := testenv.NewClock(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	logs := &logBuffer{}
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Now = clock.Now
	cfg.SlowSet = tracker.RawSlowSetConfig() // tests of the raw meaning; slowset_test.go has the hysteresis
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock, logs
}

// do sends one request through the Server's handler; header holds
// name, value pairs. A POST is application/json unless header says
// otherwise.
func do(t testing.TB, s *Server, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	return w
}

// mustHeartbeat posts hb and fails unless it is accepted; it returns the
// slow flag of the answer.
func mustHeartbeat(t testing.TB, s *Server, hb reports.Heartbeat, header ...string) bool {
	t.Helper()
	body, err := json.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	w := do(t, s, "POST", HeartbeatPath, string(body), header...)
	if w.Code != http.StatusOK {
		t.Fatalf("heartbeat from %s: %d %s", hb.Node, w.Code, w.Body)
	}
	var reply reports.HeartbeatReply
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil {
		t.Fatalf("heartbeat reply %q: %v", w.Body, err)
	}
	return reply.Slow
}

// report is a heartbeat from reporter naming each of peers slow.
func report(reporter string, peers ...string) reports.Heartbeat {
	hb := reports.Heartbeat{Node: reporter, SlowPeers: []reports.SlowPeer{}}
	for i, p := range peers {
		hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{
			Node: p, LatencyMs: 30 + float64(i), MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6,
		})
	}
	return hb
}

// wantError checks a refusal: status, JSON {"error": one line}.
func wantError(t testing.TB, w *httptest.ResponseRecorder, status int, inMsg string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body %q: %v", w.Body, err)
	}
	msg, ok := body["error"].(string)
	if len(body) != 1 || !ok || msg == "" || strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("error body %s, want {\"error\": one line}", w.Body)
	}
	if !strings.Contains(msg, inMsg) {
		t.Fatalf("error %q does not contain %q", msg, inMsg)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxNodesToReport = 0
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), MaxNodesToReportKey) {
		t.Fatalf("New with MaxNodesToReport 0: %v", err)
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	wantError(t, do(t, s, "GET", "/nope", ""), http.StatusNotFound, "no such path")
	wantError(t, do(t, s, "GET", HeartbeatPath, ""), http.StatusMethodNotAllowed, "method not allowed")
	wantError(t, do(t, s, "DELETE", SlowPeersPath, ""), http.StatusMethodNotAllowed, "method not allowed")
}

func TestHandle(t *testing.T) {
	s, _, logs := newTestServer(t, func(c *Config) { c.AuthToken = "s3cret" })
	reply := func(body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
	}
	s.Handle("GET", "/v1/extra", reply("got"))
	s.Handle("POST", "/v1/extra", reply("posted"))
	s.HandlePrefix("GET", "/v1/items/", reply("item"))
	s.Handle("GET", "/v1/boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("kaboom") }))
	if w := do(t, s, "GET", "/v1/extra", ""); w.Code != 200 || w.Body.String() != "got" {
		t.Fatalf("added GET: %d %s", w.Code, w.Body)
	}
	// An added POST needs the token like every POST.
	wantError(t, do(t, s, "POST", "/v1/extra", "{}"), http.StatusUnauthorized, "bearer token")
	if w := do(t, s, "POST", "/v1/extra", "{}", "Authorization", "Bearer s3cret"); w.Code != 200 || w.Body.String() != "posted" {
		t.Fatalf("added POST with token: %d %s", w.Code, w.Body)
	}
	// A panic is a 500 with a JSON error, logged with its stack.
	wantError(t, do(t, s, "GET", "/v1/boom", ""), http.StatusInternalServerError, "internal error")
	if l := logs.String(); !strings.Contains(l, "kaboom") || !strings.Contains(l, "goroutine") {
		t.Fatalf("panic not logged with a stack:\n%s", l)
	}
	// Added routes get their duration histogram, labelled with the
	// prefix, not the path.
	for _, path := range []string{"/v1/items/1", "/v1/items/2/3", "/v1/items/"} {
		if w := do(t, s, "GET", path, ""); w.Code != 200 || w.Body.String() != "item" {
			t.Fatalf("GET %s under the prefix: %d %s", path, w.Code, w.Body)
		}
	}
	var b bytes.Buffer
	s.WriteMetrics(&b)
	for _, want := range []string{
		`slowpeer_http_request_duration_seconds_count{method="GET",route="/v1/extra"} 1`,
		`slowpeer_http_request_duration_seconds_count{method="GET",route="/v1/items/"} 3`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("no %s:\n%s", want, b.String())
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Handle after Handler did not panic")
		}
	}()
	s.Handle("GET", "/v1/late", reply("late"))
}

// TestHandleRefusesPatterns: Handle takes plain paths and HandlePrefix
// plain prefixes; gin's pattern syntax is not theirs to accept.
func TestHandleRefusesPatterns(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	h := http.NotFoundHandler()
	f := func(name string, add func()) {
		t.Helper()
		defer func() {
			t.Helper()
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		add()
	}
	f("a parameter", func() { s.Handle("GET", "/v1/items/:id", h) })
	f("a wildcard", func() { s.Handle("GET", "/v1/items/*rest", h) })
	f("no leading slash", func() { s.Handle("GET", "v1/items", h) })
	f("a prefix without its slash", func() { s.HandlePrefix("GET", "/v1/items", h) })
	f("the root as a prefix", func() { s.HandlePrefix("GET", "/", h) })
	f("a prefix with a parameter", func() { s.HandlePrefix("GET", "/v1/:x/", h) })
}

func TestAccessLog(t *testing.T) {
	s, _, logs := newTestServer(t, nil)
	do(t, s, "GET", SlowPeersPath+"?top=x", "")
	mustHeartbeat(t, s, report("10.0.0.2:9866"))
	l := logs.String()
	for _, want := range []string{
		`level=DEBUG msg="http request" method=GET path=/slowpeers status=400`,
		`error="top: want a whole number from 1 to 100000, got \"x\""`,
		`level=DEBUG msg="http request" method=POST path=/v1/heartbeat status=200`,
	} {
		if !strings.Contains(l, want) {
			t.Errorf("access log lacks %s:\n%s", want, l)
		}
	}
}

func TestSlowNodesAndHosts(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.MaxSlowPeerCollectNodes = 2 })
	// 10.0.0.5 is reported by three nodes, 10.0.0.6 by two, 10.0.0.7 by one.
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866", "10.0.0.6:9866", "10.0.0.7:9866"))
	mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.5:9866", "10.0.0.6:9866"))
	mustHeartbeat(t, s, report("10.0.0.4:9866", "10.0.0.5:9866"))
	now := clock.Now()
	s.Diagnose(now)
	if got := strings.Join(s.SlowNodes(now), " "); got != "10.0.0.5:9866 10.0.0.6:9866" {
		t.Fatalf("SlowNodes = %s", got)
	}
	if got := strings.Join(s.SlowHosts(now), " "); got != "10.0.0.5 10.0.0.6" {
		t.Fatalf("SlowHosts = %s", got)
	}
	for host, want := range map[string]bool{"10.0.0.5": true, "10.0.0.6": true, "10.0.0.7": false, "10.0.0.2": false} {
		if got := s.IsSlowHost(now, host); got != want {
			t.Errorf("IsSlowHost(%s) = %v, want %v", host, got, want)
		}
	}
}
