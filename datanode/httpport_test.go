package datanode

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// embeddedAgent returns an agent whose PeerMetrics hold, recorded at now,
// one sample of ms per peer.
func embeddedAgent(t *testing.T, cfg Config, now time.Time, ms map[string]float64) *Agent {
	t.Helper()
	cfg.PeerMetrics = NewPeerMetrics(cfg)
	for peer, v := range ms {
		cfg.PeerMetrics.AddSendPacketDownstreamAt(now, peer, time.Duration(v*float64(time.Millisecond)))
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func get(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Code, rec.Body.String()
}

// Reference: DataNode.getSendPacketDownstreamAvgInfo and
// DataNodePeerMetrics.dumpSendPacketDownstreamAvgInfoAsJson: a string of
// {"[peer]RollingAvgTime":ms} with Jackson's doubles, every peer with a
// sample (MutableRollingAverages.snapshot applies no minimum).
func TestHTTPPortJMX(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.SoftwareVersion = "10.0.0.2:9866", []string{"http://nn:9871"}, "v1.2.3"
	a := embeddedAgent(t, cfg, time.Now(), map[string]float64{"10.0.0.3:9866": 2, "10.0.0.4:9866": 25.5})
	code, body := get(t, a.Handler(), "/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo")
	want := `{
  "beans" : [ {
    "name" : "Hadoop:service=DataNode,name=DataNodeInfo",
    "modelerType" : "org.apache.hadoop.hdfs.server.datanode.DataNode",
    "Version" : "v1.2.3",
    "SoftwareVersion" : "v1.2.3",
    "DataPort" : "9866",
    "DatanodeHostname" : "10.0.0.2",
    "XceiverCount" : 0,
    "SendPacketDownstreamAvgInfo" : "{\"[10.0.0.3:9866]RollingAvgTime\":2.0,\"[10.0.0.4:9866]RollingAvgTime\":25.5}"
  } ]
}`
	if code != http.StatusOK || body != want {
		t.Fatalf("GET /jmx: %d\n%s\nwant\n%s", code, body, want)
	}
	beans, err := jmx.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	lat, err := jmx.PeerLatencies(beans)
	if err != nil || len(lat) != 2 || lat["10.0.0.4:9866"] != 25.5 {
		t.Fatalf("PeerLatencies = %v, %v", lat, err)
	}
	// The whole document holds DataNodeInfo and JvmMetrics, the bean
	// Netdata's hdfs collector looks for first; another qry finds none.
	_, body = get(t, a.Handler(), "/jmx")
	if beans, err = jmx.Parse([]byte(body)); err != nil || len(beans) != 2 {
		t.Fatalf("GET /jmx: %v\n%s", err, body)
	}
	jvm, ok := jmx.Find(beans, "Hadoop:service=DataNode,name=JvmMetrics")
	if p, _ := jvm.Attr("tag.ProcessName"); !ok || jvm.ModelerType != "JvmMetrics" || p != "DataNode" {
		t.Fatalf("JvmMetrics: %+v", jvm)
	}
	if _, body := get(t, a.Handler(), "/jmx?qry=Hadoop:service=NameNode,*"); body != "{\n  \"beans\" : [ ]\n}" {
		t.Fatalf("GET /jmx?qry=NameNode:\n%s", body)
	}
}

// With dfs.datanode.peer.stats.enabled false, the attribute is null, as
// on a Hadoop DataNode, and a reader says why.
func TestHTTPPortPeerStatsOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.PeerStatsEnabled = "10.0.0.2:9866", []string{"http://nn:9871"}, false
	a := embeddedAgent(t, cfg, time.Now(), map[string]float64{"10.0.0.3:9866": 2})
	_, body := get(t, a.Handler(), "/jmx")
	if !strings.Contains(body, `"SendPacketDownstreamAvgInfo" : null`) {
		t.Fatalf("GET /jmx:\n%s", body)
	}
	beans, _ := jmx.Parse([]byte(body))
	if _, err := jmx.PeerLatencies(beans); !errors.Is(err, jmx.ErrPeerStatsDisabled) {
		t.Fatalf("PeerLatencies = %v", err)
	}
	if _, body := get(t, a.Handler(), "/metrics"); !strings.Contains(body, "slowpeer_datanode_peer_stats_enabled 0\n") ||
		strings.Contains(body, "slowpeer_datanode_peer_latency_seconds{") {
		t.Fatalf("GET /metrics:\n%s", body)
	}
}

func TestHTTPPortMetricsAndHealth(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes = "10.0.0.2:9866", []string{"http://nn:9871"}
	a := embeddedAgent(t, cfg, time.Now(), map[string]float64{"10.0.0.3:9866": 2, "dn\"4\\:9866": 25})
	code, body := get(t, a.Handler(), "/metrics")
	for _, want := range []string{
		`slowpeer_datanode_peer_latency_seconds{peer="10.0.0.3:9866"} 0.002` + "\n",
		`slowpeer_datanode_peer_latency_seconds{peer="dn\"4\\:9866"} 0.025` + "\n",
		"slowpeer_datanode_peers 2\n",
		"slowpeer_datanode_peer_stats_enabled 1\n",
		"slowpeer_datanode_heartbeats_sent_total 0\n",
		"slowpeer_datanode_jmx_errors_total 0\n",
	} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("GET /metrics: %d, no %q in\n%s", code, want, body)
		}
	}
	if code, body := get(t, a.Handler(), "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("GET /healthz: %d %q", code, body)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/metrics", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST /metrics: %d", rec.Code)
	}
}

func TestAnnouncedAddress(t *testing.T) {
	f := func(listen, id, want string) {
		t.Helper()
		if got := announcedAddress(listen, id); got != want {
			t.Fatalf("announcedAddress(%q, %q) = %q, want %q", listen, id, got, want)
		}
	}
	f("127.0.0.1:9864", "10.0.0.2:9866", "127.0.0.1:9864")
	f("0.0.0.0:9864", "10.0.0.2:9866", "10.0.0.2:9864")
	f("[::]:9864", "dn2.example.com:9866", "dn2.example.com:9864")
	f(":9864", "[fe80::1]:9866", "[fe80::1]:9864")
	f("[::1]:9864", "10.0.0.2:9866", "[::1]:9864")
	f("no-port", "10.0.0.2:9866", "")
}

// The loop: agent A's -hadoop-jmx reads agent B's HTTP port as it reads a
// Hadoop DataNode, and A reports the peer B measured as slow.
func TestHTTPPortReadByAnotherAgent(t *testing.T) {
	svc := newFakeService(t, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	latencies := map[string]float64{"127.0.0.9:9866": 40}
	for i := range 10 {
		latencies[fmt.Sprintf("127.0.0.%d:9866", 10+i)] = 2 + float64(i)/10
	}
	cfgB := DefaultConfig()
	cfgB.ID, cfgB.NameNodes, cfgB.HTTPListener = "127.0.0.2:9866", []string{svc.srv.URL}, ln
	cfgB.HeartbeatInterval, cfgB.MaxRetryBackoff = time.Hour, time.Hour
	b := embeddedAgent(t, cfgB, time.Now(), latencies)
	startAgent(t, b)

	cfgA := DefaultConfig()
	cfgA.ID, cfgA.NameNodes = "127.0.0.3:9866", []string{svc.srv.URL}
	cfgA.HadoopJMX = "http://" + ln.Addr().String() // no /jmx, no qry: both added
	cfgA.HeartbeatInterval, cfgA.HadoopJMXInterval, cfgA.MaxRetryBackoff = 20*time.Millisecond, 20*time.Millisecond, time.Second
	a, err := New(cfgA)
	if err != nil {
		t.Fatal(err)
	}
	startAgent(t, a)

	var slow []string
	waitFor(t, 10*time.Second, "a report from A naming 127.0.0.9:9866", func() bool {
		for _, hb := range svc.Beats() {
			if hb.Node == cfgA.ID && hb.SlowPeers != nil {
				slow = slowNames(hb.SlowPeers)
				return true
			}
		}
		return false
	}, svc)
	if len(slow) != 1 || slow[0] != "127.0.0.9:9866" {
		t.Fatalf("A reported %v, want [127.0.0.9:9866]", slow)
	}
	// B's heartbeats announce its HTTP port, from the first one on; A,
	// which serves none, announces nothing.
	waitFor(t, 10*time.Second, "a heartbeat from B", func() bool {
		for _, hb := range svc.Beats() {
			if hb.Node == cfgB.ID {
				return true
			}
		}
		return false
	}, svc)
	for _, hb := range svc.Beats() {
		want := ""
		if hb.Node == cfgB.ID {
			want = ln.Addr().String()
		}
		if hb.HTTPAddress != want {
			t.Fatalf("heartbeat of %s: httpAddress %q, want %q", hb.Node, hb.HTTPAddress, want)
		}
	}
	// B's /jmx says which port it serves.
	resp, err := http.Get("http://" + ln.Addr().String() + "/jmx")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if !strings.Contains(string(body), `"HttpPort" : "`+port+`"`) || resp.Header.Get("Content-Type") != jmx.ContentType {
		t.Fatalf("GET /jmx of B: %s\n%s", resp.Header.Get("Content-Type"), body)
	}
}

// With peer statistics off, an agent measures nothing and its heartbeats
// carry no slow-peer report.
func TestAgentPeerStatsOff(t *testing.T) {
	svc := newFakeService(t, false)
	cfg := DefaultConfig()
	cfg.ID, cfg.NameNodes, cfg.PeerStatsEnabled = "127.0.0.2:9866", []string{svc.srv.URL}, false
	cfg.HeartbeatInterval, cfg.MaxRetryBackoff = 10*time.Millisecond, time.Second
	cfg.DataListen, cfg.Peers = "127.0.0.1:0", []string{"127.0.0.4:9866"}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := startAgent(t, a)
	waitFor(t, 10*time.Second, "three heartbeats", func() bool { return len(svc.Beats()) >= 3 }, svc)
	stop()
	for _, hb := range svc.Beats() {
		if hb.SlowPeers != nil {
			t.Fatalf("heartbeat with a report: %+v", hb)
		}
	}
	if s := a.Stats(); s.ProbeBlocks != 0 || s.ProbeBlocksFailed != 0 || s.ReportsSent != 0 {
		t.Fatalf("stats %+v: measured or reported with peer statistics off", s)
	}
}
