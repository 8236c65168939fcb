package namenode

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// Imported state from the future and past the limits: a DataNode's last
// heartbeat in 2099 is taken as now, so the node dies on schedule and
// leaves the table; DataNodes past MaxDataNodes are left out, and a real
// DataNode still finds room; so are reports past the tracker's limits.
func TestImportStateClampsAndLimits(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) { c.MaxDataNodes = 3; c.MaxSlowNodes = 1 })
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.1:9866"})
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	now := clock.Now()
	st := Snapshot{SavedAt: future,
		DataNodes: []DataNode{{Node: "10.9.0.1:1", LastHeartbeat: future}, {Node: "10.9.0.2:1", LastHeartbeat: future},
			{Node: "10.9.0.3:1", LastHeartbeat: future}},
		Reports: []tracker.Held{
			{Reporter: "10.9.0.1:1", Arrival: future, SlowPeers: []reports.SlowPeer{{Node: "10.9.0.7:1", LatencyMs: 9}}},
			{Reporter: "10.9.0.2:1", Arrival: future, SlowPeers: []reports.SlowPeer{{Node: "10.9.0.8:1", LatencyMs: 9}}},
		}}
	nr, nn := s.ImportState(now, st)
	if nr != 1 || nn != 2 {
		t.Fatalf("ImportState applied %d reports, %d datanodes; want 1 (MaxSlowNodes 1), 2 (MaxDataNodes 3, one real)", nr, nn)
	}
	for _, n := range s.ExportState(now).DataNodes {
		if n.LastHeartbeat.After(now) {
			t.Errorf("%s: last heartbeat %v, after now %v", n.Node, n.LastHeartbeat, now)
		}
	}
	for _, h := range s.ExportState(now).Reports {
		if h.Arrival.After(now) {
			t.Errorf("report of %s: arrival %v, after now", h.Reporter, h.Arrival)
		}
	}
	// The table is full: a real new DataNode meets the limit as it would
	// have without the import, and the imported ones die on schedule.
	if w := do(t, s, "POST", HeartbeatPath, `{"node":"10.0.0.2:9866"}`, "Content-Type", "application/json"); w.Code != http.StatusTooManyRequests {
		t.Fatalf("a fourth DataNode: %d %s", w.Code, w.Body)
	}
	clock.Advance(s.Config().DeadAfter() + time.Second)
	if live, dead := s.nodes.Counts(clock.Now()); live != 0 || dead != 3 {
		t.Fatalf("after the dead interval: %d live, %d dead; want 0, 3", live, dead)
	}
}

// A service with a token and an advertised address proves, to a
// challenge, that it holds the token, on any answer (a 401 too), and
// Authenticate takes that; a service registered under another address,
// one without the token, and one without an advertised address are not
// taken.
func TestAuthenticate(t *testing.T) {
	serve := func(token, advertise func(addr string) string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := newTestServer(t, func(c *Config) {
			c.AuthToken, c.Advertise, c.AuthReads = token(ln.Addr().String()), advertise(ln.Addr().String()), true
		})
		srv := httptest.NewUnstartedServer(s.Handler())
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.URL
	}
	same := func(addr string) string { return addr }
	secret := func(string) string { return "s3cret" }
	ctx := context.Background()
	f := func(base string, wantOK bool) {
		t.Helper()
		err := Authenticate(ctx, http.DefaultClient, base, StatePath, "s3cret")
		if (err == nil) != wantOK {
			t.Errorf("Authenticate(%s) = %v, want ok %v", base, err, wantOK)
		}
	}
	f(serve(secret, same), true)
	f(serve(secret, func(string) string { return "10.1.1.1:9871" }), false)
	f(serve(func(string) string { return "other" }, same), false)
	f(serve(secret, func(string) string { return "" }), false)
	f("http://"+(func() string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		a := ln.Addr().String()
		ln.Close()
		return a
	})(), false)
}
