//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What TestServiceLoad measures: latencies and errors per endpoint, seen
// by the clients, and the CPU and memory of a process, read from /proc.

// loadRecorder collects, per endpoint, the latency of every request that
// started inside the measuring window, and the errors of all requests.
// It is safe for concurrent use.
type loadRecorder struct {
	mu        sync.Mutex
	from, to  time.Time // the window; zero until it is set
	latencies map[string][]time.Duration
	requests  map[string]int // all requests, inside the window or not
	errors    map[string]int
	firstErr  map[string]string
}

func newLoadRecorder() *loadRecorder {
	return &loadRecorder{latencies: map[string][]time.Duration{}, requests: map[string]int{},
		errors: map[string]int{}, firstErr: map[string]string{}}
}

// window sets the measuring window.
func (r *loadRecorder) window(from, to time.Time) {
	r.mu.Lock()
	r.from, r.to = from, to
	r.mu.Unlock()
}

// add records a request to endpoint that started at start and took d;
// err is what went wrong, or nil.
func (r *loadRecorder) add(endpoint string, start time.Time, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[endpoint]++
	if err != nil {
		if r.errors[endpoint] == 0 {
			r.firstErr[endpoint] = err.Error()
		}
		r.errors[endpoint]++
		return
	}
	if !r.from.IsZero() && !start.Before(r.from) && start.Before(r.to) {
		r.latencies[endpoint] = append(r.latencies[endpoint], d)
	}
}

// loadEndpointStats is what the clients saw of one endpoint.
type loadEndpointStats struct {
	endpoint      string
	requests      int // all of them
	measured      int // inside the window
	errors        int
	firstErr      string
	p50, p99, max time.Duration
}

// stats returns the figures of every endpoint, sorted by name.
func (r *loadRecorder) stats() []loadEndpointStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []loadEndpointStats
	for e, n := range r.requests {
		l := slices.Clone(r.latencies[e])
		slices.Sort(l)
		s := loadEndpointStats{endpoint: e, requests: n, measured: len(l), errors: r.errors[e], firstErr: r.firstErr[e]}
		if len(l) > 0 {
			s.p50, s.p99, s.max = quantile(l, 0.50), quantile(l, 0.99), l[len(l)-1]
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b loadEndpointStats) int { return strings.Compare(a.endpoint, b.endpoint) })
	return out
}

// quantile returns the q-quantile of sorted (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// procUserHz is the unit of the CPU times in /proc/PID/stat (USER_HZ,
// 100 on every Linux that Go runs on).
const procUserHz = 100

// procCPU returns the CPU time (user + system) process pid has used,
// from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("read /proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("read /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / procUserHz, nil
}

// procMemory returns the resident memory of process pid now (VmRSS) and
// at its peak (VmHWM), in bytes, from /proc/PID/status.
func procMemory(pid int) (rss, peak int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("read /proc/%d/status: %s: %w", pid, name, err)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak, sc.Err()
}

// procSample is the CPU time and memory of a process at one moment.
type procSample struct {
	at        time.Time
	cpu       time.Duration
	rss, peak int64
}

// sampleProc reads process pid's CPU time and memory now.
func sampleProc(pid int) (procSample, error) {
	cpu, err := procCPU(pid)
	if err != nil {
		return procSample{}, err
	}
	rss, peak, err := procMemory(pid)
	return procSample{at: time.Now(), cpu: cpu, rss: rss, peak: peak}, err
}

// cores is the CPU used between a and b, as a fraction of one core.
func cores(a, b procSample) float64 {
	return (b.cpu - a.cpu).Seconds() / b.at.Sub(a.at).Seconds()
}
