package datanode

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// gzipService is a service that takes gzip bodies (new) or one older
// than them (!new), which announces nothing and cannot read them. It
// records what it got; with hangUp set it drops the next connection
// without an answer.
type gzipService struct {
	mu     sync.Mutex
	new    bool
	hangUp bool
	got    []string // "gzip" or "plain" for each request, and "!" when unread
}

func (s *gzipService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hangUp {
		s.hangUp = false
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return
	}
	body, _ := io.ReadAll(r.Body)
	kind := "plain"
	if r.Header.Get("Content-Encoding") == "gzip" {
		kind = "gzip"
		if s.new {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				body = nil
			}
		}
	}
	var hb reports.Heartbeat
	if err := json.Unmarshal(body, &hb); err != nil || hb.Node == "" {
		kind += "!"
	}
	s.got = append(s.got, kind)
	if s.new {
		w.Header().Set("Accept-Encoding", "gzip")
	}
	if kind[len(kind)-1] == '!' {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"heartbeat: malformed"}`))
		return
	}
	w.Write([]byte(`{"slow":false}`))
}

func (s *gzipService) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.got
	s.got = nil
	return got
}

// The agent compresses a body over reports.GzipMinBytes only to a service
// whose latest answer said it takes gzip: never to an older service, not
// before the first answer nor after a heartbeat that got none; a
// compressed body that an older service (put in its place) cannot read is
// sent again plain at once.
func TestHeartbeatGzipNegotiation(t *testing.T) {
	svc := &gzipService{new: true}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	c, err := newHeartbeatClient(srv.URL, "", false, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	big := reports.Heartbeat{Node: "10.0.0.2:9866"}
	for i := range 40 {
		big.PeerLatencies = append(big.PeerLatencies, reports.PeerLatency{Node: fmt.Sprintf("10.0.1.%d:9866", i+1), LatencyMs: 2.5, Samples: 1840})
	}
	if b, _ := json.Marshal(big); len(b) <= reports.GzipMinBytes {
		t.Fatalf("the big heartbeat is %d bytes", len(b))
	}
	small := reports.Heartbeat{Node: "10.0.0.2:9866"}
	f := func(step string, hbs []reports.Heartbeat, want ...string) {
		t.Helper()
		for _, hb := range hbs {
			if _, _, err := c.SendHeartbeat(context.Background(), hb); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}
		if got := svc.take(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: the service got %v, want %v", step, got, want)
		}
	}
	two := []reports.Heartbeat{big, big}
	f("first answers", []reports.Heartbeat{big, small, big}, "plain", "plain", "gzip")
	svc.mu.Lock()
	svc.new = false // replaced in place by an older service
	svc.mu.Unlock()
	f("older service in its place", two, "gzip!", "plain", "plain")
	f("older service", two, "plain", "plain")
	svc.mu.Lock()
	svc.new = true
	svc.mu.Unlock()
	f("newer again", two, "plain", "gzip")
	svc.mu.Lock()
	svc.hangUp = true
	svc.mu.Unlock()
	if _, _, err := c.SendHeartbeat(context.Background(), big); err == nil {
		t.Fatal("a heartbeat without an answer did not fail")
	}
	f("after no answer", two, "plain", "gzip")

	old := &gzipService{}
	srvOld := httptest.NewServer(old)
	defer srvOld.Close()
	c, err = newHeartbeatClient(srvOld.URL, "", false, srvOld.Client())
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, _, err := c.SendHeartbeat(context.Background(), big); err != nil {
			t.Fatal(err)
		}
	}
	if got := old.take(); fmt.Sprint(got) != "[plain plain plain plain plain]" {
		t.Fatalf("an older service got %v", got)
	}
}

// BenchmarkCompressHeartbeat is the agent's cost of compressing the
// heartbeat it sends once a report interval: 64 peerLatencies, 14 recent
// latencies.
func BenchmarkCompressHeartbeat(b *testing.B) {
	body, err := json.Marshal(reportHeartbeat(64, 14))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(compress(body))
	}
	b.ReportMetric(float64(len(body)), "plainB")
	b.ReportMetric(float64(n), "gzipB")
}
