package namenode

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"
)

// fillEveryLimit posts, in-process and without a token, what fills every
// default limit of cfg at once: MaxDataNodes DataNodes, each naming 20 of
// MaxSlowNodes slow nodes (MaxTrackerEntries entries at the defaults);
// the first MaxDiagnosisReporters of them send MaxPeerLatencies
// peerLatencies of peers nobody else names (the most distinct names the
// matrix can be made to hold), twice, with a diagnosis in between, so
// that the matrix is full and a row of each waits besides; then every
// DataNode sends recentLatencies of MaxPeerLatencies other DataNodes, four
// times with other ones, so that the fast path holds MaxPeerLatencies
// pairs of each. It returns how many heartbeats were refused.
func fillEveryLimit(s *Server) int {
	cfg := s.Config()
	h := s.Handler()
	var body bytes.Buffer
	refused := 0
	send := func(i int, latencies bool) {
		body.Reset()
		fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","slowPeers":[`, i)
		for j := range 20 {
			if j > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","latencyMs":50,"medianMs":2,"madMs":0.5,"upperLimitMs":6}`,
				cfg.MaxDataNodes+(i*20+j)%cfg.MaxSlowNodes)
		}
		body.WriteByte(']')
		if latencies {
			body.WriteString(`,"peerLatencies":[`)
			for j := range cfg.MaxPeerLatencies {
				if j > 0 {
					body.WriteByte(',')
				}
				fmt.Fprintf(&body, `{"node":"peer-%d-%d.example:9866","latencyMs":%d.5,"samples":500}`, i, j, 1+j%7)
			}
			body.WriteByte(']')
		}
		body.WriteByte('}')
		if post(h, body.Bytes()) != http.StatusOK {
			refused++
		}
	}
	for i := range cfg.MaxDataNodes {
		send(i, i < cfg.MaxDiagnosisReporters)
	}
	s.Diagnose(s.now())
	for i := range cfg.MaxDiagnosisReporters {
		send(i, true)
	}
	// The fast path: every DataNode's MaxPeerLatencies pairs, of other
	// DataNodes, replaced three times over (as a reporter with more peers
	// leaves its maps).
	for round := range 4 {
		for i := range cfg.MaxDataNodes {
			body.Reset()
			fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","recentLatencies":[`, i)
			for j := range cfg.MaxPeerLatencies {
				if j > 0 {
					body.WriteByte(',')
				}
				fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","latencyMs":1.%d,"blocks":1}`,
					(i+1+round*cfg.MaxPeerLatencies+j)%cfg.MaxDataNodes, j%10)
			}
			body.WriteString("]}")
			if post(h, body.Bytes()) != http.StatusOK {
				refused++
			}
		}
		s.StepSuspects(s.now())
	}
	return refused
}

// heapPeak runs f while sampling the heap in use every 100 µs, and
// returns the most it grew above what it was before f. The garbage
// collector runs at GOGC=5 meanwhile, so that what is sampled is what f
// holds, not the garbage it left.
func heapPeak(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkEveryLimitFull fills every default limit at once
// (fillEveryLimit: 50 000 DataNodes, 1 000 000 tracker entries, 10 000
// slow nodes, 10 000 rows of 64 peerLatencies in the matrix and as many
// pending, 64 pairs of the fast path for each DataNode), then reads the large answers and saves the state file. It
// reports the Go heap in use when full (heap-MiB), the heap's peak growth
// while each answer is written (MiB), the state file's size and the time
// of a save, the process's peak RSS (VmHWM, the test's own garbage
// included), and MemoryBudget's figure for the same limits.
//
//	go test ./namenode -run '^$' -bench EveryLimitFull -benchtime 1x
func BenchmarkEveryLimitFull(b *testing.B) {
	for b.Loop() {
		before := heapInUse()
		cfg := DefaultConfig()
		cfg.Logger = slog.New(slog.DiscardHandler)
		// As the service does (cmd/slowpeer).
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryBudget(cfg).Total()))
		s, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		refused := fillEveryLimit(s)
		b.ReportMetric(float64(heapInUse()-before)/(1<<20), "heap-MiB")
		if p := os.Getenv("SLOWPEER_HEAP_PROFILE"); p != "" {
			f, _ := os.Create(p)
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		b.ReportMetric(float64(refused), "refused")
		b.ReportMetric(float64(s.Tracker().Entries()), "entries")
		b.ReportMetric(float64(s.diag.matrix.Len()), "cells")
		pairs, _ := s.fast.det.Pairs()
		b.ReportMetric(float64(pairs), "fast-path-pairs")
		h := s.Handler()
		for _, r := range []struct{ path, unit string }{
			{StatePath, "state-answer-MiB"},
			{DataNodesPath, "datanodes-answer-MiB"},
			{SlowPeersPath + "?top=100000", "slowpeers-answer-MiB"},
			{JMXPath, "jmx-answer-MiB"},
		} {
			peak := heapPeak(func() {
				w := httptest.NewRecorder()
				w.Body = nil // discard: what is measured is the service's
				h.ServeHTTP(discardRecorder{w}, httptest.NewRequest("GET", r.path, nil))
			})
			b.ReportMetric(float64(peak)/(1<<20), r.unit)
		}
		path := filepath.Join(b.TempDir(), "state.json")
		peak := heapPeak(func() {
			if err := s.SaveStateFile(s.now(), path); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(peak)/(1<<20), "state-save-MiB")
		start := time.Now()
		if err := s.SaveStateFile(s.now(), path); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds()*1000, "state-save-ms")
		b.ReportMetric(float64(fileSize(b, path))/(1<<20), "state-file-MiB")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-rss-MiB")
		b.ReportMetric(float64(MemoryBudget(cfg).Total())/(1<<20), "budget-MiB")
		runtime.KeepAlive(s)
	}
}

// discardRecorder is a ResponseWriter that throws the body away.
type discardRecorder struct{ *httptest.ResponseRecorder }

func (d discardRecorder) Write(p []byte) (int, error)       { return len(p), nil }
func (d discardRecorder) WriteString(p string) (int, error) { return len(p), nil }

// BenchmarkHeartbeatEveryLimitFull: with every limit full
// (fillEveryLimit), heartbeats of known DataNodes over loopback TCP, one
// at a time on a keep-alive connection, to the Server's handler behind
// net/http — 9 in 10 plain, 1 in 10 with a report and 64 peerLatencies — while
// another goroutine does the service's periodic work without pause: the
// diagnosis, the state file, a read of /v1/state and of /slowpeers?top=100000.
// It reports the heartbeats' p50, p99 and max.
//
//	go test ./namenode -run '^$' -bench HeartbeatEveryLimitFull -benchtime 20000x
func BenchmarkHeartbeatEveryLimitFull(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	fillEveryLimit(s)
	h := s.Handler()
	path := filepath.Join(b.TempDir(), "state.json")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.Diagnose(s.now())
			if err := s.SaveStateFile(s.now(), path); err != nil {
				b.Error(err)
				return
			}
			for _, p := range []string{StatePath, SlowPeersPath + "?top=100000"} {
				h.ServeHTTP(discardRecorder{httptest.NewRecorder()}, httptest.NewRequest("GET", p, nil))
			}
		}
	})
	bodies := make([][]byte, 100)
	for i := range bodies {
		if i%10 != 0 {
			bodies[i] = fmt.Appendf(nil, `{"node":"dn-%d.example:9866"}`, i*37)
			continue
		}
		var body bytes.Buffer
		fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","slowPeers":[],"peerLatencies":[`, i)
		for j := range cfg.MaxPeerLatencies {
			if j > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"node":"dn-%d.example:9866","latencyMs":1.5,"samples":500}`, 20000+j)
		}
		body.WriteString("]}")
		bodies[i] = body.Bytes()
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		resp, err := client.Post(srv.URL+HeartbeatPath, "application/json", bytes.NewReader(bodies[i%len(bodies)]))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("heartbeat: %s", resp.Status)
		}
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	slices.Sort(took)
	q := func(p float64) float64 { return took[int(p*float64(len(took)-1))].Seconds() * 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(q(1), "max-ms")
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
