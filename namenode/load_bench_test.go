package namenode

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadClients is the number of client goroutines, each with its own
// keep-alive connection, as DataNodes each hold one.
const loadClients = 8

// BenchmarkHeartbeatLoad drives heartbeats over loopback TCP against (a)
// the full Server and (b) a bare net/http handler that only reads the
// body and answers {"slow":false}, in the same run, alternating in rounds
// so that both see the same machine. One op is one heartbeat to each. It
// reports heartbeats/s of both over the whole run, and the median over
// the rounds of server-rate / bare-rate (target: ratio ≥ 0.5).
// Bodies are typical: 1000 senders with 0 to 5 slow peers each.
//
//	go test ./namenode -run '^$' -bench HeartbeatLoad -benchtime 20000x -count 5
func BenchmarkHeartbeatLoad(b *testing.B) {
	cfg := func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) }
	s, _, _ := newTestServer(b, cfg)
	full := httptest.NewServer(s.Handler())
	defer full.Close()
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(replyNotSlow)
	}))
	defer bare.Close()

	bodies := make([][]byte, 1000)
	for i := range bodies {
		bodies[i] = typicalHeartbeat(fmt.Sprintf("10.1.%d.%d:9866", i/250, 1+i%250), i%6)
	}
	client := &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			MaxIdleConnsPerHost: loadClients,
			MaxConnsPerHost:     loadClients,
		},
	}
	defer client.CloseIdleConnections()
	// The whole run is bounded: a stuck server fails it, not hangs it.
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()

	// send posts n heartbeats to url from loadClients goroutines and
	// returns the time it took.
	send := func(url string, n int) time.Duration {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range loadClients {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(n) || ctx.Err() != nil {
						return
					}
					req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(bodies[i%int64(len(bodies))]))
					if err != nil {
						b.Error(err)
						return
					}
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("POST %s: %s", url, resp.Status)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	fullURL, bareURL := full.URL+HeartbeatPath, bare.URL+HeartbeatPath
	send(fullURL, 2*len(bodies)) // register every sender, warm connections
	send(bareURL, 2*len(bodies))

	// Short rounds, each side right after the other, and the median of
	// the rounds' ratios: a burst of load from elsewhere on the machine
	// spoils a round, not the figure.
	const rounds = 16
	per := max(b.N/rounds, 1)
	var tookFull, tookBare time.Duration
	ratios := make([]float64, 0, rounds)
	b.ReportAllocs()
	b.ResetTimer()
	for r := range rounds {
		var bareTook, fullTook time.Duration
		if r%2 == 0 {
			bareTook = send(bareURL, per)
			fullTook = send(fullURL, per)
		} else {
			fullTook = send(fullURL, per)
			bareTook = send(bareURL, per)
		}
		tookBare += bareTook
		tookFull += fullTook
		ratios = append(ratios, bareTook.Seconds()/fullTook.Seconds())
	}
	b.StopTimer()
	n := float64(per * rounds)
	slices.Sort(ratios)
	b.ReportMetric(n/tookFull.Seconds(), "server-hb/s")
	b.ReportMetric(n/tookBare.Seconds(), "bare-hb/s")
	b.ReportMetric((ratios[rounds/2-1]+ratios[rounds/2])/2, "ratio")
}
