package namenode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

func TestSlowPeersTop(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	// Seven slow nodes: 10.0.1.k reported by k+1 nodes.
	for r := range 7 {
		var peers []string
		for k := r; k < 7; k++ {
			peers = append(peers, fmt.Sprintf("10.0.1.%d:9866", k))
		}
		mustHeartbeat(t, s, report(fmt.Sprintf("10.0.0.%d:9866", r+2), peers...))
	}
	get := func(query string) []reports.SlowNode {
		t.Helper()
		w := do(t, s, "GET", SlowPeersPath+query, "")
		if w.Code != 200 {
			t.Fatalf("GET /slowpeers%s: %d %s", query, w.Code, w.Body)
		}
		var out []reports.SlowNode
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	names := func(ns []reports.SlowNode) []string {
		var out []string
		for _, n := range ns {
			out = append(out, fmt.Sprintf("%s/%d", n.Node, len(n.Reporters)))
		}
		return out
	}
	// Default N is dfs.datanode.max.nodes.to.report.
	if got, want := names(get("")), []string{"10.0.1.6:9866/7", "10.0.1.5:9866/6", "10.0.1.4:9866/5", "10.0.1.3:9866/4", "10.0.1.2:9866/3"}; !slices.Equal(got, want) {
		t.Fatalf("default top = %v, want %v", got, want)
	}
	if got := names(get("?top=2")); !slices.Equal(got, []string{"10.0.1.6:9866/7", "10.0.1.5:9866/6"}) {
		t.Fatalf("top=2: %v", got)
	}
	if got := get("?top=100"); len(got) != 7 {
		t.Fatalf("top=100: %d nodes", len(got))
	}

	for _, q := range []string{"0", "-1", "abc", "1.5", "1e3", " 5", "100001", "99999999999999999999", ""} {
		wantError(t, do(t, s, "GET", SlowPeersPath+"?top="+url.QueryEscape(q), ""), http.StatusBadRequest, "top: want a whole number")
	}
}

func TestSlowPeersJSONShape(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	if w := do(t, s, "GET", SlowPeersPath, ""); w.Body.String() != "[]" {
		t.Fatalf("empty /slowpeers = %s, want []", w.Body)
	}
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866", SlowPeers: []reports.SlowPeer{
		{Node: "10.0.0.5:9866", LatencyMs: 35.2, MedianMs: 2.1, MADMs: 0.74, UpperLimitMs: 6.3}}})
	w := do(t, s, "GET", SlowPeersPath, "")
	// Field names exactly Hadoop trunk's SlowPeerJsonReport.
	const want = `[{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[` +
		`{"ReportingNode":"10.0.0.2:9866","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3}]}]`
	if w.Body.String() != want {
		t.Fatalf("/slowpeers =\n%s\nwant\n%s", w.Body, want)
	}
}

func TestDataNodesView(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	t0 := clock.Now()
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.3:9866"})
	clock.Advance(5 * time.Minute)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.2:9866"})
	// Reference: DatanodeManager.isDatanodeDead, dead after
	// 2 × 5m + 10 × 3s = 10m30s without a heartbeat.
	clock.Advance(5*time.Minute + 30*time.Second + time.Nanosecond)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.4:9866", HTTPAddress: "10.0.0.4:9864"})
	w := do(t, s, "GET", DataNodesPath, "")
	// 10.0.0.2 is silent for 5m30s: stale (dfs.namenode.stale.datanode.interval, 30s).
	want := fmt.Sprintf(`[{"node":"10.0.0.2:9866","state":"stale","lastHeartbeat":%d},{"node":"10.0.0.3:9866","state":"dead","lastHeartbeat":%d},`+
		`{"node":"10.0.0.4:9866","state":"live","lastHeartbeat":%d,"httpAddress":"10.0.0.4:9864"}]`,
		t0.Add(5*time.Minute).UnixMilli(), t0.UnixMilli(), clock.Now().UnixMilli())
	if w.Code != 200 || w.Body.String() != want {
		t.Fatalf("/v1/datanodes = %d %s\nwant %s", w.Code, w.Body, want)
	}
	s2, _, _ := newTestServer(t, nil)
	if w := do(t, s2, "GET", DataNodesPath, ""); w.Body.String() != "[]" {
		t.Fatalf("empty /v1/datanodes = %s", w.Body)
	}
}

// getBeans reads /jmx with query and parses it.
func getBeans(t *testing.T, s *Server, query string) []jmx.Bean {
	t.Helper()
	w := do(t, s, "GET", JMXPath+query, "")
	if w.Code != 200 {
		t.Fatalf("GET /jmx%s: %d %s", query, w.Code, w.Body)
	}
	beans, err := jmx.Parse(w.Body.Bytes())
	if err != nil {
		t.Fatalf("GET /jmx%s: %v\n%s", query, err, w.Body)
	}
	return beans
}

func attr(t *testing.T, beans []jmx.Bean, bean, name string) any {
	t.Helper()
	b, ok := jmx.Find(beans, bean)
	if !ok {
		t.Fatalf("no bean %s", bean)
	}
	v, ok := b.Attr(name)
	if !ok {
		t.Fatalf("bean %s has no %s", bean, name)
	}
	return v
}

// /slowpeers streams the bytes of Tracker.Top's JSON, across pages.
func TestSlowPeersStreamsTop(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	for i := range 3 * statePage {
		mustHeartbeat(t, s, report(fmt.Sprintf("10.1.%d.%d:9866", i/250, i%250+1),
			fmt.Sprintf("10.2.%d.%d:9866", i/250, i%250+1), fmt.Sprintf("10.3.0.%d:9866", i%7+1)))
	}
	for _, n := range []int{1, 5, 2*statePage + 3, MaxTop} {
		want, err := json.Marshal(s.Tracker().Top(clock.Now(), n))
		if err != nil {
			t.Fatal(err)
		}
		w := do(t, s, "GET", fmt.Sprintf("%s?top=%d", SlowPeersPath, n), "")
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
			t.Fatalf("top=%d: %d, %d bytes, want the %d of Top", n, w.Code, w.Body.Len(), len(want))
		}
	}
}

// /v1/datanodes without limit is every node, written a page at a time.
func TestDataNodesStreamsEveryNode(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	if w := do(t, s, "GET", DataNodesPath, ""); w.Body.String() != "[]" {
		t.Fatalf("empty table: %s", w.Body)
	}
	for i := range 2*statePage + 1 {
		mustHeartbeat(t, s, reports.Heartbeat{Node: fmt.Sprintf("10.1.%d.%d:9866", i/250, i%250+1), HTTPAddress: "h:1"})
	}
	now := clock.Now()
	var want []dataNodeJSON
	for _, n := range s.DataNodes().List(now) {
		want = append(want, dataNodeJSON{Node: n.Node, State: s.StateOf(now, n), LastHeartbeatMs: n.LastHeartbeat.UnixMilli(), HTTPAddress: n.HTTPAddress})
	}
	b, _ := json.Marshal(want)
	if w := do(t, s, "GET", DataNodesPath, ""); !bytes.Equal(w.Body.Bytes(), b) || w.Header().Get("Link") != "" {
		t.Fatalf("%d bytes, want %d; Link %q", w.Body.Len(), len(b), w.Header().Get("Link"))
	}
}
