// Package prometheus_test checks the Prometheus files shipped in
// deploy/prometheus: the rules and the example configuration with
// promtool (skipped when promtool is not on PATH, failed instead under
// SLOWPEER_REQUIRE_SERVICES=1 as in CI; see internal/testenv), and that
// every slowpeer_ metric the rules use is one the service exports.
package prometheus_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/namenode"
)

func promtool(t *testing.T, args ...string) {
	t.Helper()
	path := testenv.Command(t, "promtool")
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestPromtoolCheckRules(t *testing.T) { promtool(t, "check", "rules", "alerts.yml") }

func TestPromtoolTestRules(t *testing.T) { promtool(t, "test", "rules", "alerts_test.yml") }

func TestPromtoolCheckConfig(t *testing.T) { promtool(t, "check", "config", "prometheus.yml") }

// TestRulesUseExportedMetrics scrapes a service that has a slow node and
// a dead DataNode and checks that every slowpeer_ name in alerts.yml is in
// the scrape, so that a renamed metric cannot silently disarm an alert.
func TestRulesUseExportedMetrics(t *testing.T) {
	rules, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`slowpeer_[a-z_]+`).FindAllString(string(rules), -1)
	if len(used) == 0 {
		t.Fatal("alerts.yml uses no slowpeer_ metric")
	}

	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := namenode.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Now = func() time.Time { return now }
	s, err := namenode.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	post := func(body string) {
		t.Helper()
		w := httptest.NewRecorder()
		req := httptest.NewRequest("POST", namenode.HeartbeatPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		s.Handler().ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("heartbeat: %d %s", w.Code, w.Body)
		}
	}
	post(`{"node":"10.0.0.9:9866"}`)
	now = now.Add(cfg.DeadAfter() + time.Second)
	// Two agents without peerLatencies report 10.0.0.5, over the slow
	// set's enter-after: it enters.
	report := func() {
		for _, r := range []string{"10.0.0.2:9866", "10.0.0.3:9866"} {
			post(`{"node":"` + r + `","slowPeers":[{"node":"10.0.0.5:9866","latencyMs":40,"medianMs":2,"madMs":1,"upperLimitMs":6}]}`)
		}
		s.Diagnose(now)
	}
	report()
	now = now.Add(cfg.SlowSet.EnterAfter)
	report()
	// An agent beside a Hadoop DataNode reports a slow disk: it enters
	// the slow set of disks.
	for range 2 {
		post(`{"node":"10.0.0.4:9866","slowDisks":[{"disk":"/data/3","latencies":{"READ":120.5}}]}`)
		s.DiagnoseDisks(now)
		now = now.Add(cfg.SlowSet.EnterAfter)
	}
	var scrape bytes.Buffer
	s.WriteMetrics(&scrape)
	for _, name := range used {
		if !strings.Contains(scrape.String(), "\n"+name) && !strings.HasPrefix(scrape.String(), name) {
			t.Errorf("alerts.yml uses %s, which the service does not export", name)
		}
	}
	if t.Failed() {
		t.Log(scrape.String())
	}
}

// TestRunbook: every alert links a section of docs/runbook.md that
// exists, through its runbook_url annotation.
func TestRunbook(t *testing.T) {
	rules, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	book, err := os.ReadFile("../../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(string(book), -1) {
		anchors[strings.ToLower(strings.ReplaceAll(m[1], " ", "-"))] = true
	}
	// Each rule is "- alert: NAME" up to the next one.
	blocks := regexp.MustCompile(`(?m)^\s+- alert: `).Split(string(rules), -1)[1:]
	if len(blocks) == 0 {
		t.Fatal("no alert in alerts.yml")
	}
	const prefix = "https://github.com/slowpeer/slowpeer/blob/main/docs/runbook.md#"
	for _, b := range blocks {
		name := strings.Fields(b)[0]
		m := regexp.MustCompile(`runbook_url: "([^"]*)"`).FindStringSubmatch(b)
		switch {
		case m == nil:
			t.Errorf("%s has no runbook_url", name)
		case !strings.HasPrefix(m[1], prefix) || !anchors[strings.TrimPrefix(m[1], prefix)]:
			t.Errorf("%s: runbook_url %s names no section of docs/runbook.md", name, m[1])
		case strings.TrimPrefix(m[1], prefix) != strings.ToLower(name):
			t.Errorf("%s: runbook_url %s is not its own section", name, m[1])
		}
	}
}
