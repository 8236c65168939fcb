package namenode

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

// flood posts, in-process, one heartbeat from each of ids distinct made-up
// senders (named after seed), each naming peers random made-up peers slow,
// without a token (the default), and returns the count of answers by
// status. A negative peers sends heartbeats without a report.
func flood(s *Server, ids, peers int, seed uint64) map[int]int {
	h := s.Handler()
	rng := rand.New(rand.NewPCG(seed, 1))
	statuses := map[int]int{}
	var body bytes.Buffer
	for i := range ids {
		body.Reset()
		fmt.Fprintf(&body, `{"node":"fake-%d-%d.example:9866"`, seed, i)
		if peers >= 0 {
			body.WriteString(`,"slowPeers":[`)
			for j := range peers {
				if j > 0 {
					body.WriteByte(',')
				}
				fmt.Fprintf(&body, `{"node":"peer-%d.example:9866","latencyMs":50,"medianMs":2,"madMs":0.5,"upperLimitMs":6}`, rng.Uint64())
			}
			body.WriteByte(']')
		}
		body.WriteByte('}')
		statuses[post(h, body.Bytes())]++
	}
	return statuses
}

// post posts a heartbeat's body to h and returns the answer's status.
func post(h http.Handler, body []byte) int {
	req := httptest.NewRequest("POST", HeartbeatPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code
}

// heapInUse returns the bytes of live heap objects after a GC, as
// runtime/metrics reports them.
func heapInUse() uint64 {
	// Twice: what sync.Pools hold (the heartbeats' body buffers) survives
	// one collection in their victim caches, and under the race detector
	// a Put keeps a buffer or not at random.
	runtime.GC()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// rssBytes returns the process's resident set from /proc, or 0.
func rssBytes() uint64 { return procStatus("VmRSS:") }

// peakRSS returns the process's peak resident set (VmHWM), or 0.
func peakRSS() uint64 { return procStatus("VmHWM:") }

// procStatus returns the field of /proc/self/status (in kB there) in
// bytes, or 0.
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// scrapeSize returns the size of /metrics and its number of
// slowpeer_slow_node_reporters series.
func scrapeSize(s *Server) (size, series int) {
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", MetricsPath, nil))
	return w.Body.Len(), strings.Count(w.Body.String(), "\nslowpeer_slow_node_reporters{")
}

// The flood of issue 9, scaled down, with small limits: whatever the
// senders send, the table, the tracker and the series stay within them,
// the refusals are 429s, counted, and the made-up nodes are forgotten.
func TestFloodBounded(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) {
		c.Logger = slog.New(slog.DiscardHandler)
		c.MaxDataNodes, c.MaxTrackerEntries, c.MaxSlowNodes, c.MetricsSlowNodes = 500, 2000, 1000, 10
	})
	statuses := flood(s, 5000, 5, 1)
	if statuses[200]+statuses[429] != 5000 || statuses[429] == 0 {
		t.Fatalf("answers %v", statuses)
	}
	if n := s.DataNodes().Len(); n > 500 {
		t.Fatalf("%d DataNodes held, limit 500", n)
	}
	if n := s.Tracker().Entries(); n > 2000 {
		t.Fatalf("%d entries held, limit 2000", n)
	}
	if n := s.Tracker().SlowNodes(); n > 1000 {
		t.Fatalf("%d slow nodes held, limit 1000", n)
	}
	limited := s.metrics.rejected[reasonLimitDataNodes].Get() + s.metrics.rejected[reasonLimitEntries].Get() +
		s.metrics.rejected[reasonLimitSlowNodes].Get()
	if limited != uint64(statuses[429]) {
		t.Fatalf("%d refusals counted, %d answered", limited, statuses[429])
	}
	if _, series := scrapeSize(s); series != 10 {
		t.Fatalf("%d reporter series, want 10", series)
	}
	// Hundreds of thousands of peers in a few heartbeats: bounded as well.
	statuses = flood(s, 10, 9000, 2)
	if n := s.Tracker().Entries(); statuses[200] > 0 && n > 2000 {
		t.Fatalf("%d entries held, limit 2000", n)
	}
	// Once their reports expired and they have been silent long enough,
	// the made-up nodes are gone, and real ones get in again.
	clock.Advance(s.Config().DataNodeForgetAfter + time.Second)
	s.Step(clock.Now())
	if n, e := s.DataNodes().Len(), s.Tracker().Entries(); n != 0 || e != 0 {
		t.Fatalf("%d DataNodes and %d entries left after expiry", n, e)
	}
	mustHeartbeat(t, s, report("10.0.0.1:9866", "10.0.0.2:9866"))
}

// BenchmarkFlood is the flood of issue 9 at its full size, at the default
// limits: 200 000 distinct sender ids, each reporting 5 random slow peers,
// without a token; then 200 000 more without a report (they fill the
// DataNode table); then 300 heartbeats of 9 000 random peers. It reports the Go heap in use after it (runtime/metrics
// /memory/classes/heap/objects:bytes, after a GC), the process's RSS, the
// size of /metrics and its number of reporter series, and fails when the
// heap is over 256 MiB or /metrics over 2 MB. One run is enough:
//
//	go test ./namenode -run '^$' -bench Flood -benchtime 1x
func BenchmarkFlood(b *testing.B) {
	for b.Loop() {
		before := heapInUse()
		cfg := DefaultConfig()
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		s, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		statuses := flood(s, 200_000, 5, 1)
		withReports := s.DataNodes().Len()
		silent := flood(s, 200_000, -1, 2) // heartbeats without a report fill the table
		bigPeers := flood(s, 300, 9000, 3)
		heap := heapInUse() - before
		size, series := scrapeSize(s)
		b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(rssBytes())/(1<<20), "rss-MiB")
		b.ReportMetric(float64(size), "metrics-bytes")
		b.ReportMetric(float64(series), "reporter-series")
		b.ReportMetric(float64(withReports), "datanodes-reporting")
		b.ReportMetric(float64(s.DataNodes().Len()), "datanodes")
		b.ReportMetric(float64(s.Tracker().Entries()), "entries")
		b.ReportMetric(float64(statuses[http.StatusTooManyRequests]+silent[http.StatusTooManyRequests]+
			bigPeers[http.StatusTooManyRequests]), "refused-429")
		if heap > 256<<20 || size > 2_000_000 {
			b.Fatalf("heap %d MiB (target < 256), /metrics %d bytes (target < 2 MB)", heap>>20, size)
		}
		runtime.KeepAlive(s)
	}
}

// BenchmarkFloodFull fills every limit at its default: 50 000 DataNodes
// each naming 20 of 10 000 slow nodes, 1 000 000 entries, the most the
// defaults admit. It reports the Go heap in use then.
//
//	go test ./namenode -run '^$' -bench FloodFull -benchtime 1x
func BenchmarkFloodFull(b *testing.B) {
	for b.Loop() {
		before := heapInUse()
		cfg := DefaultConfig()
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		s, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		h := s.Handler()
		var body bytes.Buffer
		refused := 0
		for i := range DefaultMaxDataNodes {
			body.Reset()
			fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","slowPeers":[`, i)
			for j := range 20 {
				if j > 0 {
					body.WriteByte(',')
				}
				fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","latencyMs":50,"medianMs":2,"madMs":0.5,"upperLimitMs":6}`,
					DefaultMaxDataNodes+(i*20+j)%DefaultMaxSlowNodes)
			}
			body.WriteString("]}")
			req := httptest.NewRequest("POST", HeartbeatPath, bytes.NewReader(body.Bytes()))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				refused++
			}
		}
		heap := heapInUse() - before
		size, _ := scrapeSize(s)
		b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(s.Tracker().Entries()), "entries")
		b.ReportMetric(float64(refused), "refused")
		b.ReportMetric(float64(size), "metrics-bytes")
		runtime.KeepAlive(s)
	}
}
