package namenode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestHeartbeatAppliesReport(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	const a, b, c = "10.0.0.2:9866", "10.0.0.5:9866", "10.0.0.6:9866"
	if slow := mustHeartbeat(t, s, report(a, b)); slow {
		t.Fatal("reporter told it is slow")
	}
	s.Diagnose(clock.Now()) // the slow set follows at the next diagnosis
	// Reference: HDFS-16320, the heartbeat answer tells a DataNode that
	// its peers report it slow.
	if slow := mustHeartbeat(t, s, reports.Heartbeat{Node: b}); !slow {
		t.Fatal("reported node not told it is slow")
	}
	top := s.Tracker().Top(clock.Now(), 10)
	want := []reports.SlowNode{{Node: b, Reporters: []reports.Reporter{
		{Node: a, LatencyMs: 30, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6}}}}
	if !reflect.DeepEqual(top, want) {
		t.Fatalf("Top = %+v, want %+v", top, want)
	}

	// DESIGN.md: a heartbeat without slowPeers leaves earlier reports
	// standing; one with slowPeers, even empty, replaces them.
	clock.Advance(time.Minute)
	mustHeartbeat(t, s, reports.Heartbeat{Node: a})
	if !s.Tracker().IsSlow(clock.Now(), b) {
		t.Fatal("a heartbeat without a report dropped the earlier report")
	}
	mustHeartbeat(t, s, report(a, c))
	if s.Tracker().IsSlow(clock.Now(), b) || !s.Tracker().IsSlow(clock.Now(), c) {
		t.Fatal("a new report did not replace the earlier one")
	}
	mustHeartbeat(t, s, report(a))
	if s.Tracker().IsSlow(clock.Now(), c) {
		t.Fatal("an empty report did not clear the earlier one")
	}
	s.Diagnose(clock.Now())
	if slow := mustHeartbeat(t, s, reports.Heartbeat{Node: b}); slow {
		t.Fatal("node no longer reported still told it is slow")
	}

	// A report stays valid for 3 × dfs.datanode.outliers.report.interval.
	mustHeartbeat(t, s, report(a, b))
	clock.Advance(s.Config().ReportValidity() - time.Nanosecond)
	s.Diagnose(clock.Now())
	if slow := mustHeartbeat(t, s, reports.Heartbeat{Node: b}); !slow {
		t.Fatal("report expired early")
	}
	clock.Advance(time.Nanosecond)
	s.Diagnose(clock.Now())
	if slow := mustHeartbeat(t, s, reports.Heartbeat{Node: b}); slow {
		t.Fatal("expired report still counts")
	}
}

// state is everything a heartbeat can change.
type state struct {
	Slow       []reports.SlowNode
	Entries    int
	Nodes      []DataNode
	Heartbeats uint64
}

func snapshot(s *Server, now time.Time) state {
	return state{
		Slow:       s.Tracker().Top(now, MaxTop),
		Entries:    s.Tracker().Entries(),
		Nodes:      s.DataNodes().List(now),
		Heartbeats: s.metrics.heartbeats.Get(),
	}
}

func TestHeartbeatRefusedChangesNothing(t *testing.T) {
	const token = "tok-123"
	s, clock, _ := newTestServer(t, func(c *Config) { c.AuthToken = token })
	auth := []string{"Authorization", "Bearer " + token}
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"), auth...)
	clock.Advance(time.Second)
	s.Diagnose(clock.Now())

	peer := func(fields string) string { return `{"node":"10.0.0.9:9866","slowPeers":[` + fields + `]}` }
	const good = `"node":"10.0.0.5:9866","latencyMs":40,"medianMs":2,"madMs":1,"upperLimitMs":6`
	withLatency := func(v string) string {
		return peer(`{"node":"10.0.0.5:9866","latencyMs":` + v + `,"medianMs":2,"madMs":1,"upperLimitMs":6}`)
	}
	huge := `{"node":"10.0.0.9:9866","slowPeers":[` + strings.Repeat(" ", MaxHeartbeatBytes) + `]}`

	f := func(name string, status int, reason, inMsg, body string, header ...string) {
		t.Helper()
		before := snapshot(s, clock.Now())
		rejected := s.metrics.rejected[reason].Get()
		if header == nil {
			header = auth
		}
		wantError(t, do(t, s, "POST", HeartbeatPath, body, header...), status, inMsg)
		if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: refused heartbeat changed the state:\nbefore %+v\nafter  %+v", name, before, after)
		}
		if got := s.metrics.rejected[reason].Get(); got != rejected+1 {
			t.Fatalf("%s: rejected{reason=%s} went from %d to %d", name, reason, rejected, got)
		}
	}
	f("not JSON", 400, reports.ReasonMalformed, "want an object", `slow!`)
	f("truncated", 400, reports.ReasonMalformed, "unterminated string", `{"node":"10.0.0.9:98`)
	f("trailing data", 400, reports.ReasonMalformed, "data after", peer(`{`+good+`}`)+`{}`)
	f("empty body", 400, reports.ReasonMalformed, "empty body", ``)
	f("unknown field", 400, reports.ReasonUnknownField, `unknown field "load"`, `{"node":"10.0.0.9:9866","load":3}`)
	f("unknown peer field", 400, reports.ReasonUnknownField, `unknown field "rack"`, peer(`{`+good+`,"rack":"/r1"}`))
	f("missing node", 400, reports.ReasonInvalid, "missing node id", `{"slowPeers":[{`+good+`}]}`)
	f("malformed node", 400, reports.ReasonInvalid, "not host:port", `{"node":"10.0.0.9"}`)
	f("malformed peer node", 400, reports.ReasonInvalid, "bad port", peer(`{"node":"10.0.0.5:99999","latencyMs":1,"medianMs":1,"madMs":1,"upperLimitMs":1}`))
	f("NaN as a string", 400, reports.ReasonMalformed, "want a number", withLatency(`"NaN"`))
	f("bare NaN", 400, reports.ReasonMalformed, "want a number", withLatency(`NaN`))
	f("Infinity", 400, reports.ReasonMalformed, "want a number", withLatency(`"Infinity"`))
	f("1e999", 400, reports.ReasonInvalid, "does not fit a float64", withLatency(`1e999`))
	f("-1e999", 400, reports.ReasonInvalid, "does not fit a float64", withLatency(`-1e999`))
	f("negative latency", 400, reports.ReasonInvalid, "negative latency", withLatency(`-3`))
	f("peer named twice", 400, reports.ReasonInvalid, "named twice", peer(`{`+good+`},{`+good+`}`))
	// One peer more than allowed (the count is refused before the repeats).
	f("too many peers", 400, reports.ReasonTooManyPeers, "more than 10000", peer(strings.Repeat(`{`+good+`},`, reports.MaxSlowPeers)+`{`+good+`}`))
	f("body over 1 MiB", 413, reasonTooLarge, "larger than 1048576 bytes", huge)
	f("no token", 401, reasonUnauthorized, "bearer token", peer(`{`+good+`}`), "X-None", "")
	f("wrong token", 401, reasonUnauthorized, "bearer token", peer(`{`+good+`}`), "Authorization", "Bearer tok-124")
	f("token prefix", 401, reasonUnauthorized, "bearer token", peer(`{`+good+`}`), "Authorization", "Bearer tok-12")
	f("wrong scheme", 401, reasonUnauthorized, "bearer token", peer(`{`+good+`}`), "Authorization", "Basic "+token)

	// A body over 1 MiB without Content-Length (chunked) is cut off too.
	before := snapshot(s, clock.Now())
	req := httptest.NewRequest("POST", HeartbeatPath, io.MultiReader(strings.NewReader(huge)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, req)
	wantError(t, w, 413, "larger than")
	if after := snapshot(s, clock.Now()); !reflect.DeepEqual(before, after) {
		t.Fatal("chunked oversized heartbeat changed the state")
	}
	// And the largest accepted heartbeat gets in.
	if slow := mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.5:9866"}, auth...); !slow {
		t.Fatal("state lost along the way")
	}
}

func TestHeartbeatAuth(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken = "abc" })
	hb := `{"node":"10.0.0.2:9866"}`
	w := do(t, s, "POST", HeartbeatPath, hb)
	wantError(t, w, 401, "bearer token")
	if got := w.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
		t.Fatalf("WWW-Authenticate = %q", got)
	}
	// The scheme is case-insensitive (RFC 7235).
	for _, h := range []string{"Bearer abc", "bearer abc", "BEARER  abc"} {
		if w := do(t, s, "POST", HeartbeatPath, hb, "Authorization", h); w.Code != 200 {
			t.Fatalf("Authorization %q: %d %s", h, w.Code, w.Body)
		}
	}
	// Reads stay open.
	for _, p := range []string{SlowPeersPath, JMXPath, MetricsPath, DataNodesPath} {
		if w := do(t, s, "GET", p, ""); w.Code != 200 {
			t.Fatalf("GET %s with auth on: %d", p, w.Code)
		}
	}
}

func TestHeartbeatRegistersSender(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	t0 := clock.Now()
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
	clock.Advance(time.Minute)
	mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.7:9866"))
	got := s.DataNodes().List(clock.Now())
	// A node named only as a slow peer is not registered: only senders are.
	want := []DataNode{
		{Node: "10.0.0.2:9866", State: Live, LastHeartbeat: t0},
		{Node: "10.0.0.3:9866", State: Live, LastHeartbeat: t0.Add(time.Minute)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("List = %+v, want %+v", got, want)
	}
}

func BenchmarkHeartbeatHandler(b *testing.B) {
	for _, peers := range []int{0, 5} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			s, _, _ := newTestServer(b, nil)
			h := s.Handler()
			bodies := make([][]byte, 1000)
			for i := range bodies {
				bodies[i] = typicalHeartbeat(fmt.Sprintf("10.1.%d.%d:9866", i/250, 1+i%250), peers)
			}
			benchHeartbeats(b, h, bodies)
		})
	}
}

// benchHeartbeats sends the bodies in turn to h, one a loop, each
// answered 200.
func benchHeartbeats(b *testing.B, h http.Handler, bodies [][]byte) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req := httptest.NewRequest("POST", HeartbeatPath, bytes.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body)
		}
		i++
	}
}

// typicalHeartbeat is the body an agent sends with n slow peers.
func typicalHeartbeat(node string, n int) []byte {
	hb := reports.Heartbeat{Node: node, SlowPeers: []reports.SlowPeer{}}
	for i := range n {
		hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{
			Node: fmt.Sprintf("10.0.%d.%d:9866", i/250, 1+i%250), LatencyMs: 35.2 + float64(i),
			MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3,
		})
	}
	b, err := json.Marshal(hb)
	if err != nil {
		panic(err)
	}
	return b
}
