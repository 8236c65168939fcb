package datanode

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reference: HADOOP-18954 — Hadoop writes a non-finite double unquoted.
// One such gauge, in DataNodeInfo or in any other bean of a whole
// document, does not stop the agent.
func TestHadoopJMXNaN(t *testing.T) {
	for _, doc := range []string{"dn-nan.json", "dn-nan-whole.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", doc))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
		defer srv.Close()
		h := newHadoopJMX(DefaultConfig(), srv.URL+"/jmx", srv.Client(), &counters{}, discard)
		if err := h.Scrape(context.Background()); err != nil {
			t.Fatalf("%s: Scrape: %v", doc, err)
		}
		d, err := h.Detect(time.Now())
		if err != nil || len(d.SlowPeers) != 1 || d.SlowPeers[0].Node != "10.0.0.9:9864" {
			t.Fatalf("%s: Detect = %+v, %v; want 10.0.0.9:9864 slow", doc, d, err)
		}
	}
}

func TestHadoopJMXURL(t *testing.T) {
	f := func(raw, want string) {
		t.Helper()
		if got := HadoopJMXURL(raw); got != want {
			t.Fatalf("HadoopJMXURL(%q) = %q, want %q", raw, got, want)
		}
	}
	const q = "qry=Hadoop:service=DataNode,name=DataNodeInfo"
	f("http://dn:9864/jmx", "http://dn:9864/jmx?"+q)
	f("http://dn:9864", "http://dn:9864/jmx?"+q)
	f("http://dn:9864/", "http://dn:9864/jmx?"+q)
	f("https://dn:9865/jmx?x=1", "https://dn:9865/jmx?x=1&"+q)
	f("http://dn:9864/jmx?qry=Hadoop:service=DataNode,name=*", "http://dn:9864/jmx?qry=Hadoop:service=DataNode,name=*")
	f("http://dn:9864/jmx?qry=", "http://dn:9864/jmx?qry=") // the whole document, asked for
	f("http://dn:9864/jmx?get=Hadoop:service=DataNode,name=DataNodeInfo::SendPacketDownstreamAvgInfo",
		"http://dn:9864/jmx?get=Hadoop:service=DataNode,name=DataNodeInfo::SendPacketDownstreamAvgInfo")
	f("http://dn:9864/proxy/jmx", "http://dn:9864/proxy/jmx?"+q)
	f("::", "::")
}

// logRecorder keeps the lines logged at Info and above.
type logRecorder struct {
	mu   sync.Mutex
	logs []string
}

func (l *logRecorder) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func (l *logRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logs = append(l.logs, strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *logRecorder) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.logs
	l.logs = nil
	return out
}

// A lasting condition of the DataNode is logged once when it begins, with
// what was read, and once when it ends; a failed read in between neither
// ends it nor repeats it. Every read is still counted.
func TestHadoopJMXLastingConditionLoggedOnce(t *testing.T) {
	j := newJMXServer(t, "dn-peer-stats-disabled.json")
	var rec logRecorder
	c := &counters{}
	h := newHadoopJMX(DefaultConfig(), j.url(), j.srv.Client(), c, rec.logger())
	// scrape reads doc once; with want, exactly one line is logged and
	// holds every string of want; without, nothing is logged.
	scrape := func(doc string, status int, want ...string) {
		t.Helper()
		j.set(doc, status)
		h.Scrape(context.Background())
		got := rec.take()
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if len(got) != 1 || len(want) == 0 {
			t.Fatalf("%s: logged %q, want one line with %q", doc, got, want)
		}
		for _, w := range want {
			if !strings.Contains(got[0], w) {
				t.Fatalf("%s: logged %q, want %q in it", doc, got[0], w)
			}
		}
	}
	scrape("dn-peer-stats-disabled.json", 200, "level=WARN", "dfs.datanode.peer.stats.enabled is false")
	scrape("dn-peer-stats-disabled.json", 200)
	scrape("dn-peer-stats-disabled.json", 200)
	scrape("dn-slow-peer.json", http.StatusServiceUnavailable, "reading the Hadoop DataNode's /jmx failed")
	scrape("dn-peer-stats-disabled.json", 200)
	scrape("dn-slow-peer.json", 200, "level=INFO", "has peer latencies again")
	scrape("dn-slow-peer.json", 200)
	scrape("dn-hadoop2-no-attr.json", 200, "has no SendPacketDownstreamAvgInfo")
	scrape("dn-hadoop2-no-attr.json", 200)
	scrape("dn-peer-stats-disabled.json", 200, "dfs.datanode.peer.stats.enabled is false")
	scrape("dn-no-bean.json", 200, "no bean Hadoop:service=DataNode,name=DataNodeInfo")
	if s := c.snapshot(); s.JMXErrors != 9 || s.JMXScrapes != 2 {
		t.Fatalf("counters %+v, want 9 errors and 2 reads", s)
	}
}
