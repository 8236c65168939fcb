package main

import (
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
)

// The dashboard is mounted on the service: / leads to it, GET and HEAD
// answer, and it shows the tracker's slow nodes, the DataNodes (stale
// after 30 s without a heartbeat) and the picker's HiveServers and pick.
func TestDashboardMounted(t *testing.T) {
	s, p, clock := newPicker(t, "10.0.0.5:10000", "hs1.example.com:10000")
	mountDashboard(s, &dashboardSource{srv: s, picker: p}, clock.Now)

	slowReport(t, s, "10.0.0.9:9866") // stays silent from now on
	clock.Advance(40 * time.Second)
	for _, r := range []string{"10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866"} {
		slowReport(t, s, r, "10.0.0.5:9866")
	}
	slowReport(t, s, "10.0.0.5:9866")
	event := hookEvent("hs1.example.com:10000", "PRE_EXEC_HOOK", "q1", clock.Now().UnixMilli())
	if w := serveOne(s, "POST", "/rest/hiveserver/send", event, "application/x-www-form-urlencoded"); w.Code != 200 {
		t.Fatalf("hook event: %d %s", w.Code, w.Body)
	}

	w := serveOne(s, "GET", "/", "", "")
	if w.Code != 302 || w.Header().Get("Location") != dashboard.Path {
		t.Fatalf("GET /: %d, Location %q", w.Code, w.Header().Get("Location"))
	}
	if w := serveOne(s, "HEAD", "/", "", ""); w.Code != 302 {
		t.Fatalf("HEAD /: %d", w.Code)
	}
	if w := serveOne(s, "GET", "/ui", "", ""); w.Code != 301 || w.Header().Get("Location") != dashboard.Path {
		t.Fatalf("GET /ui: %d, Location %q", w.Code, w.Header().Get("Location"))
	}
	if w := serveOne(s, "HEAD", dashboard.Path, "", ""); w.Code != 200 || w.Body.Len() != 0 {
		t.Fatalf("HEAD %s: %d, %d bytes", dashboard.Path, w.Code, w.Body.Len())
	}
	if w := serveOne(s, "GET", dashboard.Path+"app.js", "", ""); w.Code != 200 {
		t.Fatalf("GET app.js: %d", w.Code)
	}
	if w := serveOne(s, "POST", dashboard.Path, "", ""); w.Code != 405 {
		t.Fatalf("POST %s: %d", dashboard.Path, w.Code)
	}
	w = serveOne(s, "GET", dashboard.Path, "", "")
	body := w.Body.String()
	for _, want := range []string{
		"1 node in the slow set; 1 node reported slow by peers;",
		"5 DataNodes: 4 live, 1 stale, 0 dead; HiveServer pick: hs1.example.com:10000.",
		`<th scope="row">10.0.0.5:9866</th><td>3: 10.0.0.2:9866, 10.0.0.3:9866, 10.0.0.4:9866</td><td>30.0</td><td>2.00</td><td>15.0×</td>`,
		`<tr class="stale"><th scope="row">10.0.0.9:9866</th><td>stale</td>`,
		`<th scope="row">10.0.0.5:10000</th><td>0</td><td>0.0</td><td>yes: no new work</td><td>no</td>`,
		`<th scope="row">hs1.example.com:10000</th><td>1</td><td>60.0</td><td>no</td><td>yes</td>`,
		"Nothing to diagnose.",
		"Not available: this service is not registered in ZooKeeper or etcd.",
	} {
		if !strings.Contains(body, want) {
			t.Fatalf("GET %s: %d, lacks %q:\n%s", dashboard.Path, w.Code, want, body)
		}
	}
}

// The optional parts show once a component gives them.
func TestDashboardSourceParts(t *testing.T) {
	s, _, clock := newPicker(t)
	src := &dashboardSource{srv: s,
		matrix: func(time.Time) *dashboard.Matrix { return &dashboard.Matrix{} },
		cluster: func(time.Time) *dashboard.Cluster {
			return &dashboard.Cluster{Self: "nn1:9871", Leader: "nn1:9871", Replicas: []string{"nn1:9871"}, Registry: "etcd"}
		},
	}
	v := src.Snapshot(clock.Now())
	if v.HiveServers != nil || v.Diagnosis == nil || v.Matrix == nil || v.Cluster == nil || v.Cluster.Registry != "etcd" {
		t.Fatalf("view %+v", v)
	}
}

// The heatmap's matrix is what the agents' peerLatencies said.
func TestDashboardMatrixFromPeerLatencies(t *testing.T) {
	s, _, clock := newPicker(t)
	src := &dashboardSource{srv: s}
	if v := src.Snapshot(clock.Now()); v.Matrix != nil {
		t.Fatalf("matrix before any peerLatencies: %+v", v.Matrix)
	}
	hb := `{"node":"10.0.0.2:9866","slowPeers":[],"peerLatencies":[` +
		`{"node":"10.0.0.5:9866","latencyMs":40.5,"samples":900},{"node":"10.0.0.6:9866","latencyMs":0.5,"samples":800}]}`
	if w := serveOne(s, "POST", "/v1/heartbeat", hb, "application/json"); w.Code != 200 {
		t.Fatalf("heartbeat: %d %s", w.Code, w.Body)
	}
	s.Diagnose(clock.Now()) // the cells of the last diagnosis, asked for above
	v := src.Snapshot(clock.Now())
	if v.Matrix == nil || len(v.Matrix.Latencies) != 2 {
		t.Fatalf("matrix %+v, want the 2 cells of the heartbeat", v.Matrix)
	}
	got := map[string]float64{}
	for _, l := range v.Matrix.Latencies {
		if l.Reporter != "10.0.0.2:9866" {
			t.Errorf("cell of reporter %s", l.Reporter)
		}
		got[l.Peer] = l.LatencyMs
	}
	if got["10.0.0.5:9866"] != 40.5 || got["10.0.0.6:9866"] != 0.5 {
		t.Fatalf("cells %v", got)
	}
}
