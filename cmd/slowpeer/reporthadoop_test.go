package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/slowpeer/slowpeer/jmx"
)

// hadoopNameNode is a stub of a Hadoop NameNode's HTTP port: no
// /slowpeers (404, as Jetty answers it), and /jmx answering the qry of
// NameNodeStatus with a fixture under testdata/, anything else with no
// beans. It records the requests it served.
type hadoopNameNode struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []string
}

func newHadoopNameNode(t *testing.T, fixture string) *hadoopNameNode {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	nn := &hadoopNameNode{}
	nn.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nn.mu.Lock()
		nn.requests = append(nn.requests, r.URL.RequestURI())
		nn.mu.Unlock()
		if r.URL.Path != "/jmx" {
			w.Header().Set("Content-Type", "text/html;charset=iso-8859-1")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<html><head><title>Error 404 Not Found</title></head><body><h2>HTTP ERROR 404</h2></body></html>"))
			return
		}
		w.Header().Set("Content-Type", jmx.ContentType)
		if r.URL.Query().Get("qry") != jmx.NameNodeStatusBean {
			w.Write([]byte("{\n  \"beans\" : [ ]\n}"))
			return
		}
		w.Write(doc)
	}))
	t.Cleanup(nn.srv.Close)
	return nn
}

func (nn *hadoopNameNode) served() []string {
	nn.mu.Lock()
	defer nn.mu.Unlock()
	return append([]string(nil), nn.requests...)
}

// Reference: NameNode.getSlowPeersReport and getSlowDisksReport, in each
// shape Hadoop has written them.
func TestReportHadoopShapes(t *testing.T) {
	f := func(fixture, want string, args ...string) {
		t.Helper()
		nn := newHadoopNameNode(t, fixture)
		code, out, errOut := runReportCmd(append([]string{"report", "-namenode", nn.srv.URL}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", fixture, code, errOut)
		}
		if out != want {
			t.Fatalf("%s %v:\n%s\nwant:\n%s", fixture, args, out, want)
		}
	}
	// Hadoop 2.8 to 3.3: reporters without figures; the slow disks follow.
	f("hadoop-nn-3.3.json", `Slow nodes: 2

SLOW NODE      REPORTERS  REPORTING NODE  LATENCY ms  MEDIAN ms  MAD ms  UPPER LIMIT ms
10.0.0.9:9864  3          10.0.0.2:9867   -           -          -       -
                          10.0.0.3:9867   -           -          -       -
                          10.0.0.4:9867   -           -          -       -
10.0.0.5:9864  1          10.0.0.2:9867   -           -          -       -

Slow disks: 2

DISK                   METADATA ms  READ ms  WRITE ms
10.0.0.4:9866:/data/1  -            12.25    30.50
10.0.0.6:9866:/data/3  4.00         -        -
`)
	// HDFS-16582: the reported latency only.
	f("hadoop-nn-hdfs16582.json", `Slow nodes: 2

SLOW NODE      REPORTERS  REPORTING NODE  LATENCY ms   MEDIAN ms  MAD ms  UPPER LIMIT ms
10.0.0.9:9864  2          10.0.0.2:9867   41.00        -          -       -
                          10.0.0.3:9867   12345678.50  -          -       -
10.0.0.5:9864  1          10.0.0.2:9867   35.20        -          -       -
`)
	// Trunk: every figure, except a null Double and a NaN.
	f("hadoop-nn-trunk.json", `Slow nodes: 1

SLOW NODE             REPORTERS  REPORTING NODE        LATENCY ms  MEDIAN ms  MAD ms  UPPER LIMIT ms
dn5.example.com:9864  2          dn2.example.com:9867  35.20       2.10       0.74    6.30
                                 dn3.example.com:9867  41.00       -          -       6.00
`)
	f("hadoop-nn-empty.json", "No slow nodes reported.\n")
	f("hadoop-nn-peerstats-off.json", "Slow-peer tracking is off on this NameNode (dfs.datanode.peer.stats.enabled=false).\n")
	f("hadoop-nn-no-slowpeers.json", "This NameNode does not track slow peers: its NameNodeStatus has no SlowPeersReport (a Hadoop release before HDFS-11194).\n")

	// -json: /slowpeers' shape, figures Hadoop did not send left out.
	f("hadoop-nn-3.3.json", `[{"SlowNode":"10.0.0.9:9864","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9867"},{"ReportingNode":"10.0.0.3:9867"},{"ReportingNode":"10.0.0.4:9867"}]},{"SlowNode":"10.0.0.5:9864","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"10.0.0.2:9867"}]}]`+"\n", "-json")
	f("hadoop-nn-trunk.json", `[{"SlowNode":"dn5.example.com:9864","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"dn2.example.com:9867","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3},{"ReportingNode":"dn3.example.com:9867","ReportedLatency":41,"UpperLimitLatency":6}]}]`+"\n", "-json")
	f("hadoop-nn-empty.json", "[]\n", "-json")
	f("hadoop-nn-peerstats-off.json", "null\n", "-json")
	f("hadoop-nn-no-slowpeers.json", "null\n", "-json")

	// -top N keeps the first N of the ranking.
	f("hadoop-nn-hdfs16582.json", `Slow nodes: 1

SLOW NODE      REPORTERS  REPORTING NODE  LATENCY ms   MEDIAN ms  MAD ms  UPPER LIMIT ms
10.0.0.9:9864  2          10.0.0.2:9867   41.00        -          -       -
                          10.0.0.3:9867   12345678.50  -          -       -
`, "-top", "1")
}

// report asks /slowpeers first, then, on its 404, the one bean of /jmx.
func TestReportHadoopRequests(t *testing.T) {
	nn := newHadoopNameNode(t, "hadoop-nn-trunk.json")
	if code, _, errOut := runReportCmd("report", "-namenode", nn.srv.URL+"/", "-top", "3"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{"/slowpeers?top=3", "/jmx?qry=Hadoop%3Aservice%3DNameNode%2Cname%3DNameNodeStatus"}
	if got := nn.served(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("requests %q, want %q", got, want)
	}
}

// A bad Hadoop answer is an error on stderr, exit 1, nothing on stdout.
func TestReportHadoopBadAnswer(t *testing.T) {
	f := func(handler http.HandlerFunc, want string) {
		t.Helper()
		srv := httptest.NewServer(handler)
		defer srv.Close()
		code, out, errOut := runReportCmd("report", "-namenode", srv.URL)
		if code != 1 || out != "" || !strings.Contains(errOut, want) {
			t.Fatalf("exit %d, out %q, stderr %q; want exit 1 with %q", code, out, errOut, want)
		}
	}
	jmxDoc := func(doc string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/jmx" {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(doc))
		}
	}
	f(http.NotFoundHandler().ServeHTTP, "neither a slowpeer service nor a Hadoop NameNode")
	f(jmxDoc(`{"beans":[]}`), "no bean Hadoop:service=NameNode,name=NameNodeStatus: not a NameNode")
	f(jmxDoc(`<html>`), "parse jmx document")
	f(jmxDoc(`{"beans":[{"name":"Hadoop:service=NameNode,name=NameNodeStatus","SlowPeersReport":7}]}`), "SlowPeersReport is not a string")
	f(jmxDoc(`{"beans":[{"name":"Hadoop:service=NameNode,name=NameNodeStatus","SlowPeersReport":"[{\"SlowNode\":\"a:1\"}]"}]}`),
		"entry 0 (a:1): no reporting nodes")
	f(jmxDoc(`{"beans":[{"name":"Hadoop:service=NameNode,name=NameNodeStatus","SlowPeersReport":"[]","SlowDisksReport":"{"}]}`),
		"parse SlowDisksReport")
}

// FuzzParseHadoopReport: a NameNode's /jmx never panics the report, and
// what it accepts prints.
func FuzzParseHadoopReport(f *testing.F) {
	for _, name := range []string{"hadoop-nn-3.3.json", "hadoop-nn-hdfs16582.json", "hadoop-nn-trunk.json", "hadoop-nn-peerstats-off.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseHadoopReport(data)
		if err != nil {
			return
		}
		if (r.peersOff || r.noTracker) && r.nodes != nil {
			t.Fatalf("tracking off, yet nodes %+v", r.nodes)
		}
		rankSlowNodes(r.nodes)
		var sb strings.Builder
		if err := writeReportTable(&sb, r.nodes); err != nil {
			t.Fatal(err)
		}
		if r.disks != nil {
			if err := writeDiskTable(&sb, r.disks); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeHadoopJSON(&sb, r); err != nil {
			t.Fatal(err)
		}
	})
}
