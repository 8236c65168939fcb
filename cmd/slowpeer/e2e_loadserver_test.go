//go:build e2e

package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// What the service itself measured of its heartbeats: the buckets of its
// slowpeer_http_request_duration_seconds for POST /v1/heartbeat, read at
// both ends of the window. It is the time from the router to the answer
// written; the clients' latency adds the connection, the kernel and the
// wait for a CPU of either process.

// heartbeatBuckets reads the cumulative heartbeat buckets (upper bound in
// seconds → count) from base's /metrics.
func heartbeatBuckets(ctx context.Context, client *http.Client, base string) (map[float64]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+namenode.MetricsPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	prefix := fmt.Sprintf(`slowpeer_http_request_duration_seconds_bucket{method="POST",route=%q,le="`, reports.HeartbeatPath)
	out := map[float64]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		le, count, ok := strings.Cut(rest, `"} `)
		if !ok {
			return nil, fmt.Errorf("heartbeat bucket %q", sc.Text())
		}
		bound, err1 := strconv.ParseFloat(le, 64) // "+Inf" parses
		n, err2 := strconv.ParseFloat(count, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("heartbeat bucket %q", sc.Text())
		}
		out[bound] = n
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no heartbeat buckets in %s", namenode.MetricsPath)
	}
	return out, nil
}

// bucketQuantile returns the smallest bucket bound under which at least
// the fraction q of the requests counted between before and after fell,
// and how many they were.
func bucketQuantile(before, after map[float64]float64, q float64) (bound float64, n float64) {
	total := after[math.Inf(1)] - before[math.Inf(1)]
	bound = math.Inf(1)
	for le, c := range after {
		if c-before[le] >= q*total && le < bound {
			bound = le
		}
	}
	return bound, total
}

// metricSum returns the sum of the series of base's /metrics whose name
// (with labels, when given) begins with series.
func metricSum(ctx context.Context, client *http.Client, base, series string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+namenode.MetricsPath, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	name, _, _ := strings.Cut(series, "{")
	labels := strings.TrimSuffix(strings.TrimPrefix(series, name), "}")
	sum, found := 0.0, false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+" ") && !strings.HasPrefix(line, name+"{") {
			continue
		}
		if labels != "" && !strings.Contains(line, strings.TrimPrefix(labels, "{")) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q", series, line)
		}
		sum, found = sum+v, true
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if !found {
		return 0, fmt.Errorf("no %s in %s", series, namenode.MetricsPath)
	}
	return sum, nil
}
