package datanode

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// jmxServer serves the fixture named by *doc (under testdata/) at /jmx,
// or the status in *status when it is not 200.
type jmxServer struct {
	mu     sync.Mutex
	doc    string
	status int
	srv    *httptest.Server
}

func newJMXServer(t *testing.T, doc string) *jmxServer {
	t.Helper()
	j := &jmxServer{doc: doc, status: http.StatusOK}
	j.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		j.mu.Lock()
		doc, status := j.doc, j.status
		j.mu.Unlock()
		if r.URL.Path != "/jmx" || r.URL.Query().Get("qry") != "Hadoop:service=DataNode,name=DataNodeInfo" {
			http.NotFound(w, r)
			return
		}
		if status != http.StatusOK {
			http.Error(w, "down", status)
			return
		}
		data, err := os.ReadFile(filepath.Join("testdata", doc))
		if err != nil {
			t.Errorf("fixture: %v", err)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf8")
		w.Write(data)
	}))
	t.Cleanup(j.srv.Close)
	return j
}

func (j *jmxServer) set(doc string, status int) {
	j.mu.Lock()
	j.doc, j.status = doc, status
	j.mu.Unlock()
}

func (j *jmxServer) url() string {
	return j.srv.URL + "/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo"
}

func testJMX(j *jmxServer, port int) (*HadoopJMX, *counters) {
	cfg := DefaultConfig()
	cfg.HadoopJMXPeerPort = port
	c := &counters{}
	return newHadoopJMX(cfg, j.url(), j.srv.Client(), c, discard), c
}

// Reference: DataNode.getSendPacketDownstreamAvgInfo — Hadoop's own rolling
// averages, fed to OutlierDetector as they are.
func TestHadoopJMXDetect(t *testing.T) {
	j := newJMXServer(t, "dn-slow-peer.json")
	f := func(port int, wantSlow string) {
		t.Helper()
		h, c := testJMX(j, port)
		if err := h.Scrape(context.Background()); err != nil {
			t.Fatalf("Scrape: %v", err)
		}
		d, err := h.Detect(time.Now())
		if err != nil {
			t.Fatalf("Detect: %v", err)
		}
		if d.Peers != 11 || d.Skipped || !near(d.MedianMs, 2) || !near(d.MADMs, 0.125*1.4826) || !near(d.UpperLimitMs, 6) {
			t.Fatalf("Detect = %+v", d)
		}
		if len(d.SlowPeers) != 1 || d.SlowPeers[0].Node != wantSlow || d.SlowPeers[0].LatencyMs != 41.5 {
			t.Fatalf("slow peers %+v, want %s at 41.5 ms", d.SlowPeers, wantSlow)
		}
		if s := c.snapshot(); s.JMXScrapes != 1 || s.JMXErrors != 0 {
			t.Fatalf("counters %+v", s)
		}
	}
	f(0, "10.0.0.9:9864")    // Hadoop's name: the info port
	f(9866, "10.0.0.9:9866") // slowpeer.hadoop.jmx.peer.port=9866
}

// A DataNode that wrote no pipeline lately lists no peer: that is an empty
// report (the test is skipped), not an error.
func TestHadoopJMXNoPeers(t *testing.T) {
	h, _ := testJMX(newJMXServer(t, "dn-no-peers.json"), 0)
	if err := h.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := h.Detect(time.Now())
	if err != nil || !d.Skipped || d.Peers != 0 || d.SlowPeers == nil || len(d.SlowPeers) != 0 {
		t.Fatalf("Detect = %+v, %v; want an empty report", d, err)
	}
}

// A malformed document or a failed read is an error, counted, and changes
// nothing: the last good document stays the source until it is stale.
func TestHadoopJMXErrors(t *testing.T) {
	j := newJMXServer(t, "dn-slow-peer.json")
	h, c := testJMX(j, 0)
	if _, err := h.Detect(time.Now()); err == nil || !strings.Contains(err.Error(), "no /jmx document read") {
		t.Fatalf("Detect before any read = %v", err)
	}
	if err := h.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	readAt := time.Now()
	f := func(doc string, status int, wantErr string) {
		t.Helper()
		j.set(doc, status)
		before := c.snapshot().JMXErrors
		err := h.Scrape(context.Background())
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%s: Scrape = %v, want an error with %q", doc, err, wantErr)
		}
		if got := c.snapshot().JMXErrors; got != before+1 {
			t.Fatalf("%s: %d errors counted, want %d", doc, got, before+1)
		}
		d, err := h.Detect(time.Now())
		if err != nil || len(d.SlowPeers) != 1 || d.SlowPeers[0].Node != "10.0.0.9:9864" {
			t.Fatalf("%s: Detect after a bad read = %+v, %v; want the last good document's report", doc, d, err)
		}
	}
	f("dn-peer-stats-disabled.json", 200, "dfs.datanode.peer.stats.enabled is false")
	f("dn-hadoop2-no-attr.json", 200, "has no SendPacketDownstreamAvgInfo")
	f("dn-bad-avg.json", 200, "SendPacketDownstreamAvgInfo")
	f("dn-negative-avg.json", 200, "negative")
	f("dn-no-bean.json", 200, "no bean Hadoop:service=DataNode,name=DataNodeInfo")
	f("dn-truncated.json", 200, "parse /jmx")
	f("dn-slow-peer.json", http.StatusServiceUnavailable, "status 503")
	f("missing.json", http.StatusNotFound, "status 404")

	// Three intervals after the last good read, there is no report.
	if _, err := h.Detect(readAt.Add(staleScrapes * DefaultHadoopJMXInterval)); err == nil || !strings.Contains(err.Error(), "old") {
		t.Fatalf("Detect on a stale document = %v, want an error", err)
	}
}

func TestPeerLatenciesPortClash(t *testing.T) {
	doc := `{"beans":[{"name":"Hadoop:service=DataNode,name=DataNodeInfo","modelerType":"x",
		"SendPacketDownstreamAvgInfo":"{\"[10.0.0.3:9864]RollingAvgTime\":1,\"[10.0.0.3:9865]RollingAvgTime\":2}"}]}`
	if _, err := peerLatencies([]byte(doc), 0); err != nil {
		t.Fatalf("two ports of one host, kept: %v", err)
	}
	if _, err := peerLatencies([]byte(doc), 9866); err == nil || !strings.Contains(err.Error(), "two peers become 10.0.0.3:9866") {
		t.Fatalf("two ports of one host made one = %v, want an error", err)
	}
}

// FuzzPeerLatencies: a /jmx document gives an error or latencies every one
// of which is a finite number ≥ 0 under a valid node id, with the port
// asked for.
func FuzzPeerLatencies(f *testing.F) {
	for _, name := range []string{"dn-slow-peer.json", "dn-no-peers.json", "dn-bad-avg.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint16(9866))
		f.Add(data, uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, port uint16) {
		lat, err := peerLatencies(data, int(port))
		if err != nil {
			return
		}
		for peer, ms := range lat {
			if reports.ValidateNode(peer) != nil || reports.ValidateLatency(ms) != nil {
				t.Fatalf("peer %q at %v ms accepted", peer, ms)
			}
			if _, p, _ := net.SplitHostPort(peer); port != 0 && p != strconv.Itoa(int(port)) {
				t.Fatalf("peer %q does not have port %d", peer, port)
			}
		}
	})
}
