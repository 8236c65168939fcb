package namenode

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/certs"
	"github.com/slowpeer/slowpeer/internal/certtest"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
)

// With AuthReads every route needs the token, reads too.
func TestAuthReads(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken, c.AuthReads = "abc", true })
	for _, p := range []string{SlowPeersPath, JMXPath, MetricsPath, DataNodesPath} {
		wantError(t, do(t, s, "GET", p, ""), 401, "bearer token")
		if w := do(t, s, "GET", p, "", "Authorization", "Bearer abc"); w.Code != 200 {
			t.Fatalf("GET %s with the token: %d %s", p, w.Code, w.Body)
		}
	}
	wantError(t, do(t, s, "POST", HeartbeatPath, `{"node":"10.0.0.2:9866"}`), 401, "bearer token")
	if got := s.OpenEndpoints(); len(got) != 0 {
		t.Fatalf("OpenEndpoints = %v, want none", got)
	}
	c := DefaultConfig()
	c.AuthReads = true
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "auth reads needs an auth token") {
		t.Fatalf("AuthReads without a token: %v", err)
	}
}

// OpenEndpoints names every route without a token, the reads with a token
// alone, and the start-up warning names them.
func TestOpenEndpoints(t *testing.T) {
	open, _, logs := newTestServer(t, nil)
	got := strings.Join(open.OpenEndpoints(), ", ")
	for _, want := range []string{"GET /slowpeers", "GET /metrics", "POST /v1/heartbeat"} {
		if !strings.Contains(got, want) {
			t.Fatalf("OpenEndpoints without a token = %s, lacks %s", got, want)
		}
	}
	_, stop := serve(t, open)
	stop()
	if l := logs.String(); !strings.Contains(l, "no auth token") || !strings.Contains(l, "POST /v1/heartbeat") {
		t.Fatalf("start-up log does not name the open endpoints:\n%s", l)
	}

	reads, _, logs := newTestServer(t, func(c *Config) { c.AuthToken = "abc" })
	got = strings.Join(reads.OpenEndpoints(), ", ")
	if strings.Contains(got, "POST") || !strings.Contains(got, "GET /v1/datanodes") {
		t.Fatalf("OpenEndpoints with a token = %s, want the reads only", got)
	}
	_, stop = serve(t, reads)
	stop()
	if l := logs.String(); !strings.Contains(l, "reads need no token") || !strings.Contains(l, "no TLS") {
		t.Fatalf("start-up log with a token and no TLS:\n%s", l)
	}
}

// With Config.TLS, Serve speaks HTTPS only.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	ca := certtest.NewCA(t, "test CA")
	pair, err := certs.LoadPair(ca.WritePair(t, dir, "nn", "nn", "127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	roots, _ := certs.LoadPool(ca.WriteCA(t, dir, "ca.pem"))
	s, _, _ := newTestServer(t, func(c *Config) { c.TLS = certs.ServerConfig(pair, nil) })
	base, _ := serve(t, s)
	addr := strings.TrimPrefix(base, "http://")

	tr := &http.Transport{TLSClientConfig: certs.ClientConfig(roots, nil)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + addr + DataNodesPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
		t.Fatalf("HTTPS GET: %s %s", resp.Status, body)
	}
	resp, err = http.Get("http://" + addr + DataNodesPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || strings.Contains(string(body), "[") {
		t.Fatalf("plain HTTP GET: %s %s, want net/http's 400", resp.Status, body)
	}
}

// A DataNode the table holds dead is left out of SlowNodes and SlowHosts,
// and the next live slow node takes its place.
func TestSlowNodesSkipDead(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.MaxSlowPeerCollectNodes = 1 })
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.5:9866"})
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866", "10.0.0.6:9866"))
	mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.5:9866"))
	s.Diagnose(clock.Now())
	if got := strings.Join(s.SlowNodes(clock.Now()), " "); got != "10.0.0.5:9866" {
		t.Fatalf("SlowNodes = %s", got)
	}
	// 10.0.0.5 falls silent past the expiry; its reporters go on, and
	// their reports of it are still valid.
	clock.Advance(s.Config().DeadAfter() + time.Second)
	for _, n := range []string{"10.0.0.2:9866", "10.0.0.3:9866"} {
		mustHeartbeat(t, s, reports.Heartbeat{Node: n})
	}
	now := clock.Now()
	s.Diagnose(now)
	if st, _ := s.DataNodes().State(now, "10.0.0.5:9866"); st != Dead {
		t.Fatalf("10.0.0.5 is %s", st)
	}
	if top := s.Tracker().Top(now, 5); len(top) != 2 || top[0].Node != "10.0.0.5:9866" {
		t.Fatalf("tracker top = %+v, want the dead node still reported", top)
	}
	if got := strings.Join(s.SlowNodes(now), " "); got != "10.0.0.6:9866" {
		t.Fatalf("SlowNodes with 10.0.0.5 dead = %s, want 10.0.0.6:9866", got)
	}
	if s.IsSlowHost(now, "10.0.0.5") || !s.IsSlowHost(now, "10.0.0.6") {
		t.Fatalf("SlowHosts = %v", s.SlowHosts(now))
	}
}

// Failed TLS handshakes are counted and logged as one summary line a
// period, as refusals are, not one line each.
func TestHandshakeFailuresSummarised(t *testing.T) {
	dir := t.TempDir()
	ca := certtest.NewCA(t, "test CA")
	pair, err := certs.LoadPair(ca.WritePair(t, dir, "nn", "nn", "127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	s, clock, logs := newTestServer(t, func(c *Config) { c.TLS = certs.ServerConfig(pair, nil) })
	s.Step(clock.Now())
	base, _ := serve(t, s)
	const n = 200
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("\x00\x01\x02\x03\x04 not a handshake"))
		c.Close()
	}
	testenv.WaitFor(t, "the failed handshakes counted", 10*time.Second, func() bool { return s.metrics.refused.handshakes.Load() == n })
	if c := len(logLinesWith(logs.String(), "handshake")); c != 0 {
		t.Fatalf("%d lines on handshakes before the summary:\n%.2000s", c, logs)
	}
	clock.Advance(summaryEvery)
	s.Step(clock.Now())
	want := fmt.Sprintf(`level=WARN msg="failed %d TLS handshakes in the last 10s, the last from 127.0.0.1:`, n)
	if c := strings.Count(logs.String(), want); c != 1 ||
		len(logLinesWith(logs.String(), "handshake")) != 1 {
		t.Fatalf("summary logged %d times, want once:\n%.2000s", c, logs)
	}
	if _, got := scrape(t, s); got["slowpeer_tls_handshakes_failed_total"] != n {
		t.Fatalf("handshakes not counted: %v", got["slowpeer_tls_handshakes_failed_total"])
	}
}

// logLinesWith returns the lines of text that contain s.
func logLinesWith(text, s string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}
