package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
)

// testService starts a service at its defaults on a test HTTP server.
func testService(t *testing.T) (*namenode.Server, *httptest.Server) {
	t.Helper()
	cfg := namenode.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := namenode.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv
}

// The service's slow disks print as a Hadoop NameNode's do (the table of
// its SlowDisksReport), then the fleet view's findings.
func TestReportServiceDisks(t *testing.T) {
	s, srv := testService(t)
	post := func(hb string) {
		t.Helper()
		resp, err := http.Post(srv.URL+namenode.HeartbeatPath, "application/json", strings.NewReader(hb))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("heartbeat %s: %d", hb, resp.StatusCode)
		}
	}
	code, out, _ := runReportCmd("report", "-namenode", srv.URL)
	if code != 0 || out != "No slow nodes reported.\n\nDiagnosis (/v1/slownodes): nothing slow.\n\nSlow set (/v1/slowset): empty; no alert fires and no work is moved.\n" {
		t.Fatalf("nothing slow: exit %d, out:\n%s", code, out)
	}
	post(`{"node":"10.0.0.2:9866","slowDisks":[{"disk":"/data/3","latencies":{"READ":120.5,"WRITE":88.25}}]}`)
	for i := range 12 {
		ms := 6.0
		if i == 4 {
			ms = 90
		}
		post(fmt.Sprintf(`{"node":"10.0.1.%d:9866","diskLatencies":[{"disk":"/d","kind":"hdd","latencies":{"READ":%v},"samples":{"READ":600}}]}`, i+1, ms))
	}
	s.DiagnoseDisks(time.Now())
	code, out, errOut := runReportCmd("report", "-namenode", srv.URL)
	for _, want := range []string{
		"Slow disks: 1\n\nDISK                   READ ms  WRITE ms\n10.0.0.2:9866:/data/3  120.50   88.25\n",
		"Fleet view (/v1/slowdisks): 1\n\nDISK              KIND  EVIDENCE  OP    VALUE ms  MEDIAN ms  SLOW SET\n10.0.1.5:9866:/d  hdd   latency   READ  90.00     6.00       no\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("exit %d, out:\n%s\nwant in it:\n%s\nstderr %s", code, out, want, errOut)
		}
	}
}

func TestReportServiceDisksBadAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slowpeers", "/v1/slownodes":
			io.WriteString(w, "[]")
		case "/slowdisks":
			io.WriteString(w, `[{"SlowDiskID":""}]`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	code, out, errOut := runReportCmd("report", "-namenode", srv.URL)
	if code != 1 || out != "" || !strings.Contains(errOut, "bad answer from "+srv.URL+"/slowdisks") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errOut)
	}
}

// FuzzParseDiskFindings checks that a /v1/slowdisks answer, whatever it
// is, is read or refused without a panic, and that what is read is valid.
func FuzzParseDiskFindings(f *testing.F) {
	f.Add([]byte(`[{"node":"10.0.1.5:9866","disk":"/d","kind":"hdd","evidence":"latency","op":"READ","valueMs":90,"medianMs":6,"upperLimitMs":20,"inSlowSet":true}]`))
	f.Add([]byte(`[{"node":"h:1","disk":"","evidence":"service","op":null,"valueMs":-1}]`))
	f.Add([]byte(`[] []`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fs, err := parseDiskFindings(body)
		if err != nil {
			return
		}
		for _, x := range fs {
			if x.Node == "" || x.Disk == "" || x.ValueMs < 0 || x.MedianMs < 0 || x.LimitMs < 0 {
				t.Fatalf("accepted %+v of %q", x, body)
			}
		}
	})
}
