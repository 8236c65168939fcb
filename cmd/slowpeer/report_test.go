package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// sample is a /slowpeers answer in Hadoop trunk's shape.
const sample = `[{"SlowNode":"10.0.0.5:9866","SlowPeerLatencyWithReportingNodes":[` +
	`{"ReportingNode":"10.0.0.2:9866","ReportedLatency":35.2,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3},` +
	`{"ReportingNode":"10.0.0.3:9866","ReportedLatency":41,"MedianLatency":1.9,"MadLatency":0.5,"UpperLimitLatency":5.7}]},` +
	`{"SlowNode":"10.0.0.6:9866","SlowPeerLatencyWithReportingNodes":[` +
	`{"ReportingNode":"10.0.0.2:9866","ReportedLatency":12.25,"MedianLatency":2.1,"MadLatency":0.74,"UpperLimitLatency":6.3}]}]`

// reportServer answers /slowpeers with status and body and records the
// query it was asked.
func reportServer(t *testing.T, status int, body string) (*httptest.Server, *string) {
	t.Helper()
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slowpeers" {
			http.NotFound(w, r)
			return
		}
		query = r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &query
}

func runReportCmd(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestReportTable(t *testing.T) {
	srv, query := reportServer(t, 200, sample)
	code, out, errOut := runReportCmd("report", "-namenode", srv.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `Slow nodes: 2

SLOW NODE      REPORTERS  REPORTING NODE  LATENCY ms  MEDIAN ms  MAD ms  UPPER LIMIT ms
10.0.0.5:9866  2          10.0.0.2:9866   35.20       2.10       0.74    6.30
                          10.0.0.3:9866   41.00       1.90       0.50    5.70
10.0.0.6:9866  1          10.0.0.2:9866   12.25       2.10       0.74    6.30
`
	if out != want {
		t.Fatalf("table:\n%s\nwant:\n%s", out, want)
	}
	if *query != "" {
		t.Fatalf("asked ?%s without -top", *query)
	}
	if code, _, _ := runReportCmd("report", "-namenode", srv.URL, "-top", "12"); code != 0 || *query != "top=12" {
		t.Fatalf("-top 12: exit %d, query %q", code, *query)
	}
}

func TestReportEmpty(t *testing.T) {
	srv, _ := reportServer(t, 200, "[]\n")
	code, out, _ := runReportCmd("report", "-namenode", srv.URL)
	if code != 0 || out != "No slow nodes reported.\n" {
		t.Fatalf("exit %d, out %q", code, out)
	}
	code, out, _ = runReportCmd("report", "-namenode", srv.URL, "-json")
	if code != 0 || out != "[]\n" {
		t.Fatalf("-json: exit %d, out %q", code, out)
	}
}

func TestReportJSON(t *testing.T) {
	srv, _ := reportServer(t, 200, sample)
	code, out, _ := runReportCmd("report", "-namenode", srv.URL, "-json")
	if code != 0 || out != sample+"\n" {
		t.Fatalf("exit %d, out %q", code, out)
	}
}

// A bad answer is an error on stderr, exit 1, nothing on stdout.
func TestReportBadAnswer(t *testing.T) {
	f := func(status int, body, want string) {
		t.Helper()
		srv, _ := reportServer(t, status, body)
		for _, extra := range [][]string{nil, {"-json"}} {
			code, out, errOut := runReportCmd(append([]string{"report", "-namenode", srv.URL}, extra...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, want) {
				t.Fatalf("answer %d %q %v: exit %d, out %q, stderr %q; want exit 1 with %q", status, body, extra, code, out, errOut, want)
			}
		}
	}
	f(400, `{"error":"top: want a whole number from 1 to 100000, got \"0\""}`, `400 Bad Request: top: want a whole number`)
	f(500, `<html>oops</html>`, `500 Internal Server Error: "<html>oops</html>"`)
	f(200, `not json`, "not a slow-peer report")
	f(200, `{"SlowNode":"a:1"}`, "not a slow-peer report")
	f(200, `null`, "want a JSON array")
	f(200, `[] []`, "data after the JSON value")
	f(200, `[{"SlowNode":"a:1","Extra":1,"SlowPeerLatencyWithReportingNodes":[]}]`, `unknown field "Extra"`)
	f(200, `[{"SlowNode":"nohost","SlowPeerLatencyWithReportingNodes":[]}]`, "entry 0: SlowNode")
	f(200, `[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[]}]`, "no reporting nodes")
	f(200, `[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b:1","ReportedLatency":-1}]}]`, "negative latency")
	f(200, `[{"SlowNode":"a:1","SlowPeerLatencyWithReportingNodes":[{"ReportingNode":"b","ReportedLatency":1}]}]`, "reporter 0")
}

func TestReportUsageErrors(t *testing.T) {
	f := func(want string, args ...string) {
		t.Helper()
		code, out, errOut := runReportCmd(append([]string{"report"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, want) {
			t.Fatalf("%v: exit %d, out %q, stderr %q; want 2 with %q", args, code, out, errOut, want)
		}
	}
	f("-namenode URL is required")
	f(`-namenode "nn:9871" is not an http or https URL`, "-namenode", "nn:9871")
	f(`is not an http or https URL`, "-namenode", "http://nn:9871/?x=1")
	f("-top 0: want 1 to 100000", "-namenode", "http://nn:9871", "-top", "0")
	f("-top -3", "-namenode", "http://nn:9871", "-top", "-3")
	f(`invalid value "x" for flag -top`, "-namenode", "http://nn:9871", "-top", "x")
	f(`unexpected argument "more"`, "-namenode", "http://nn:9871", "more")
}

func TestReportUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	code, out, errOut := runReportCmd("report", "-namenode", url)
	if code != 1 || out != "" || !strings.Contains(errOut, "report: ") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errOut)
	}
}

// TestReportAgainstService reads the report of a real service.
func TestReportAgainstService(t *testing.T) {
	_, srv := testService(t)
	hb := `{"node":"10.0.0.2:9866","slowPeers":[{"node":"10.0.0.5:9866","latencyMs":35.2,"medianMs":2.1,"madMs":0.74,"upperLimitMs":6.3}]}`
	resp, err := http.Post(srv.URL+namenode.HeartbeatPath, "application/json", strings.NewReader(hb))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, out, errOut := runReportCmd("report", "-namenode", srv.URL, "-top", "3")
	if code != 0 || !strings.Contains(out, "10.0.0.5:9866  1          10.0.0.2:9866   35.20       2.10       0.74    6.30") {
		t.Fatalf("exit %d, out:\n%s\nstderr %s", code, out, errOut)
	}
}

// FuzzParseReport: whatever the answer, parseReport returns slow nodes
// with reporters, all with valid nodes and latencies, or an error.
func FuzzParseReport(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		nodes, err := parseReport(body)
		if err != nil {
			return
		}
		for _, n := range nodes {
			if reports.ValidateNode(n.Node) != nil || len(n.Reporters) == 0 {
				t.Fatalf("%q: kept %+v", body, n)
			}
			for _, r := range n.Reporters {
				if reports.ValidateNode(r.Node) != nil || reports.ValidateLatency(r.LatencyMs) != nil {
					t.Fatalf("%q: kept %+v", body, r)
				}
			}
		}
	})
}
