package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// proposedDefines are the -D options of DETECTION.md's proposed defaults.
var proposedDefines = []string{
	"-D", "dfs.datanode.outliers.report.interval=5m", "-D", "slowpeer.rolling.window=1m",
	"-D", "slowpeer.rolling.windows=3", "-D", "dfs.datanode.peer.metrics.min.outlier.detection.samples=20",
	"-D", "slowpeer.slow.enter.after=3m", "-D", "slowpeer.slow.leave.after=1h",
}

// TestSimulateJSON checks the -json contract of DESIGN.md: exactly the
// documented fields, and the slow host found.
func TestSimulateJSON(t *testing.T) {
	args := append([]string{"simulate", "-nodes", "80", "-scenario", "slow-host", "-seed", "3", "-hours", "0.25", "-json"}, proposedDefines...)
	code, out, errOut := runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	type quantiles struct {
		P50 float64 `json:"p50"`
		P95 float64 `json:"p95"`
	}
	type incidents struct {
		Incidents          *int       `json:"incidents"`
		AtFault            *int       `json:"atFault"`
		Detected           *int       `json:"detected"`
		Recall             *float64   `json:"recall"`
		Precision          *float64   `json:"precision"`
		FalsePositives     *int       `json:"falsePositives"`
		TimeToEnterSeconds *quantiles `json:"timeToEnterSeconds"`
		KindRight          *float64   `json:"kindRight"`
		FlapsPerHour       *float64   `json:"flapsPerHour"`
	}
	type metrics struct {
		Precision           *float64   `json:"precision"`
		Recall              *float64   `json:"recall"`
		FalsePositives      *int       `json:"falsePositives"`
		TimeToDetectSeconds *quantiles `json:"timeToDetectSeconds"`
		FlapsPerHour        *float64   `json:"flapsPerHour"`
		Incidents           *incidents `json:"incidents"`
	}
	type sizes struct {
		P50 int `json:"p50"`
		P99 int `json:"p99"`
	}
	type cost struct {
		HeartbeatBytes struct {
			WithoutReport sizes `json:"withoutReport"`
			WithReport    sizes `json:"withReport"`
		} `json:"heartbeatBytes"`
		ProbeBlocksPerAgentHour     *float64 `json:"probeBlocksPerAgentHour"`
		RequestedBlocksPerAgentHour *float64 `json:"requestedBlocksPerAgentHour"`
		RequestsIgnored             *int     `json:"requestsIgnored"`
	}
	var got struct {
		Nodes           int      `json:"nodes"`
		Scenario        string   `json:"scenario"`
		Seed            uint64   `json:"seed"`
		NodeDays        *float64 `json:"nodeDays"`
		Slowpeer        *metrics `json:"slowpeer"`
		Hadoop          *metrics `json:"hadoop"`
		WithoutFastPath *metrics `json:"withoutFastPath"`
		Cost            *cost    `json:"cost"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got.Nodes != 80 || got.Scenario != "slow-host" || got.Seed != 3 || got.Slowpeer == nil || got.Hadoop == nil ||
		got.WithoutFastPath == nil || got.Cost == nil || got.NodeDays == nil || got.Slowpeer.Incidents == nil {
		t.Fatalf("got %s", out)
	}
	s := got.Slowpeer
	if s.Recall == nil || *s.Recall != 1 || s.FalsePositives == nil || *s.FalsePositives != 0 || s.TimeToDetectSeconds == nil || s.FlapsPerHour == nil {
		t.Fatalf("slowpeer did not find the slow host: %s", out)
	}
	if bytes.Contains([]byte(out), []byte("FalsePositiveEntities")) {
		t.Fatalf("extra field in %s", out)
	}
}

// TestSimulateTableAndErrors checks the readable table and the usage
// errors.
func TestSimulateTableAndErrors(t *testing.T) {
	code, out, errOut := runCmd(t, "", append([]string{"simulate", "-nodes", "80", "-scenario", "healthy", "-hours", "0.1"}, proposedDefines...)...)
	if code != 0 || !strings.Contains(out, "precision") || !strings.Contains(out, "hadoop") {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"simulate", "-scenario", "healthy"},
		{"simulate", "-nodes", "80", "-scenario", "nope"},
		{"simulate", "-nodes", "10", "-scenario", "healthy"},
		{"simulate", "-nodes", "80", "-scenario", "healthy", "-D", "slowpeer.slow.enter.reporters=0"},
	} {
		if code, _, errOut := runCmd(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestSimulateWithoutFastPath checks that slowpeer.suspect.enabled=false
// runs today's path alone: no figures without the fast path, no cost.
func TestSimulateWithoutFastPath(t *testing.T) {
	code, out, errOut := runCmd(t, "", "simulate", "-nodes", "80", "-scenario", "slow-host", "-hours", "0.1", "-warmup", "10m", "-json",
		"-D", "slowpeer.suspect.enabled=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["withoutFastPath"]; ok {
		t.Fatalf("withoutFastPath without the fast path: %s", out)
	}
	if _, ok := got["cost"]; ok {
		t.Fatalf("cost without the fast path: %s", out)
	}
}
