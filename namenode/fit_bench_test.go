package namenode

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// BenchmarkHeartbeatDuringFit measures the heartbeat path while the
// diagnosis fits a matrix of 10 000 reporters × 50 peers without pause
// (one goroutine calling Diagnose in a loop: worse than production's one
// fit every DiagnoseEvery). One op is two heartbeats through the Server's
// handler, in turn: one carrying a report and 50 peerLatencies, and one
// plain. It reports each kind's mean and p99 time, and their ratio: a
// heartbeat that waited for the fit would take a fit's time (~0.2 s),
// not a few tens of µs more than a plain one.
//
//	go test ./namenode -run '^$' -bench HeartbeatDuringFit -benchtime 2000x
func BenchmarkHeartbeatDuringFit(b *testing.B) {
	const nodes, peers = 10000, 50
	s, clock, _ := newTestServer(b, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) })
	h := s.Handler()
	name := func(i int) string { return fmt.Sprintf("10.%d.%d.%d:9866", 1+i/65536, i/256%256, i%256) }
	withLatencies := make([]string, nodes)
	plain := make([]string, nodes)
	for i := range nodes {
		hb := reports.Heartbeat{Node: name(i), SlowPeers: []reports.SlowPeer{}}
		for k := range peers {
			p := (i + 1 + k*197) % nodes
			hb.PeerLatencies = append(hb.PeerLatencies, reports.PeerLatency{Node: name(p),
				LatencyMs: 1.5 + float64((i*7+p*3)%10)/10, Samples: 1800})
		}
		body, err := json.Marshal(hb)
		if err != nil {
			b.Fatal(err)
		}
		withLatencies[i] = string(body)
		plain[i] = fmt.Sprintf(`{"node":%q}`, name(i))
	}
	post := func(body string) time.Duration {
		req := httptest.NewRequest("POST", HeartbeatPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, req)
		took := time.Since(start)
		if w.Code != 200 {
			b.Fatalf("heartbeat: %d %s", w.Code, w.Body)
		}
		return took
	}
	for i := range nodes {
		post(withLatencies[i])
	}
	s.Diagnose(clock.Now())
	if n := s.diag.matrix.Len(); n != nodes*peers {
		b.Fatalf("%d cells, want %d", n, nodes*peers)
	}

	stop := make(chan struct{})
	var fits sync.WaitGroup
	var fitCount int
	fits.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				s.Diagnose(clock.Now())
				fitCount++
			}
		}
	})
	with := make([]time.Duration, 0, b.N)
	without := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		with = append(with, post(withLatencies[i%nodes]))
		without = append(without, post(plain[(i+nodes/2)%nodes]))
		i++
	}
	b.StopTimer()
	close(stop)
	fits.Wait()
	mean := func(d []time.Duration) float64 {
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		return float64(sum.Microseconds()) / float64(len(d))
	}
	p99 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)*99/100].Microseconds())
	}
	b.ReportMetric(mean(with), "µs/hb-latencies")
	b.ReportMetric(mean(without), "µs/hb-plain")
	b.ReportMetric(mean(with)/mean(without), "ratio")
	b.ReportMetric(p99(with), "p99-µs-latencies")
	b.ReportMetric(p99(without), "p99-µs-plain")
	b.ReportMetric(float64(fitCount), "fits")
}
