package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// diagnosisServer answers /slowpeers with sample and /v1/slownodes with
// status and findings.
func diagnosisServer(t *testing.T, status int, findings string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/slowpeers":
			io.WriteString(w, sample)
		case "/v1/slownodes":
			w.WriteHeader(status)
			io.WriteString(w, findings)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The table is followed by the diagnosis, a kind per slow node, when the
// service has /v1/slownodes (TestReportTable: none without it).
func TestReportDiagnosis(t *testing.T) {
	srv := diagnosisServer(t, 200, `[{"node":"10.0.0.5:9866","kind":"inbound","reporters":9,"latencyMs":35.2,"medianMs":0.1},`+
		`{"node":"10.0.0.6:9866","kind":"link","peer":"10.0.0.2:9866","reporters":1,"latencyMs":12.25,"medianMs":0.1}]`)
	code, out, errOut := runReportCmd("report", "-namenode", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `
Diagnosis (/v1/slownodes): 2

NODE           KIND     PEER OR RACK   REPORTERS  LATENCY ms  MEDIAN ms
10.0.0.5:9866  inbound  -              9          35.20       0.10
10.0.0.6:9866  link     10.0.0.2:9866  1          12.25       0.10
`
	if !strings.HasSuffix(out, want) {
		t.Fatalf("output:\n%s\nwant it to end with:\n%s", out, want)
	}

	srv = diagnosisServer(t, 200, `[]`)
	if _, out, _ := runReportCmd("report", "-namenode", srv.URL); !strings.HasSuffix(out, "\nDiagnosis (/v1/slownodes): nothing slow.\n") {
		t.Fatalf("empty diagnosis: %q", out)
	}
	for _, bad := range []string{`{}`, `[{"node":"x","kind":"inbound"}]`, `[{"node":"h:1","kind":"slow"}]`, `[{"node":"h:1","kind":"both","extra":1}]`} {
		srv = diagnosisServer(t, 200, bad)
		if code, _, errOut := runReportCmd("report", "-namenode", srv.URL); code != 1 || !strings.Contains(errOut, "/v1/slownodes") {
			t.Errorf("diagnosis %s: exit %d, stderr %q; want 1 and an error naming /v1/slownodes", bad, code, errOut)
		}
	}
}

// FuzzParseDiagnosis: whatever the answer, parseDiagnosis returns findings
// with valid nodes and latencies, or an error.
func FuzzParseDiagnosis(f *testing.F) {
	f.Add([]byte(`[{"node":"h:1","kind":"inbound","reporters":3,"latencyMs":40,"medianMs":2}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fs, err := parseDiagnosis(body)
		if err != nil {
			return
		}
		for _, x := range fs {
			if reports.ValidateNode(x.Node) != nil || reports.ValidateLatency(x.LatencyMs) != nil || reports.ValidateLatency(x.MedianMs) != nil {
				t.Fatalf("%q: kept %+v", body, x)
			}
		}
		if err := writeDiagnosis(io.Discard, fs); err != nil {
			t.Fatal(err)
		}
	})
}
