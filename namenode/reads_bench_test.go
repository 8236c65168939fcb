package namenode

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// BenchmarkReads10000 answers each read endpoint in process for a table
// of 10 000 DataNodes (each with an HTTP address), 100 of them reported
// slow by 20 reporters: the reads of TestServiceLoad (cmd/slowpeer) at
// its full size, one request per op.
//
//	go test ./namenode -run '^$' -bench Reads10000 -benchmem -benchtime 20x
func BenchmarkReads10000(b *testing.B) {
	s, clock, _ := newTestServer(b, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) })
	now := clock.Now()
	for i := range 10000 {
		node := fmt.Sprintf("10.%d.%d.%d:9866", 1+i/10000, i/40%256, 1+i%40)
		hb := reports.Heartbeat{Node: node, HTTPAddress: node[:len(node)-4] + "9864"}
		if i%100 < 20 {
			hb.SlowPeers = []reports.SlowPeer{}
			for j := range 5 {
				hb.SlowPeers = append(hb.SlowPeers, reports.SlowPeer{Node: fmt.Sprintf("10.9.0.%d:9866", (i/100*5+j)%100+1),
					LatencyMs: 40, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6})
			}
		}
		if _, err := s.apply(now, hb); err != nil {
			b.Fatal(err)
		}
	}
	h := s.Handler()
	for _, path := range []string{SlowPeersPath, JMXPath, MetricsPath, DataNodesPath} {
		b.Run(path[1:], func(b *testing.B) {
			b.ReportAllocs()
			size := 0
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", path, w.Code)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
