package namenode

import (
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/tracker"
)

// TestSlowSetHysteresis checks that SlowNodes, the heartbeat's answer and
// the slowpeer_slow_set_nodes gauge follow the slow set, as of the last
// Diagnose, while /slowpeers keeps Hadoop's raw meaning. The reporters
// send no peerLatencies (as agents reading a Hadoop DataNode): their
// reports are the evidence.
func TestSlowSetHysteresis(t *testing.T) {
	s, clock, _ := newTestServer(t, func(c *Config) {
		c.SlowSet = tracker.SlowSetConfig{EnterAfter: 2 * time.Minute, EnterReporters: 2, LeaveAfter: 5 * time.Minute}
	})
	reportBoth := func() {
		mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
		mustHeartbeat(t, s, report("10.0.0.3:9866", "10.0.0.5:9866"))
	}
	gauge := func() string {
		w := do(t, s, "GET", MetricsPath, "")
		for _, line := range strings.Split(w.Body.String(), "\n") {
			if strings.HasPrefix(line, "slowpeer_slow_set_nodes ") {
				return strings.TrimPrefix(line, "slowpeer_slow_set_nodes ")
			}
		}
		t.Fatalf("no slowpeer_slow_set_nodes in\n%s", w.Body)
		return ""
	}
	reportBoth()
	s.Diagnose(clock.Now())
	if got := s.SlowNodes(clock.Now()); len(got) != 0 {
		t.Fatalf("SlowNodes at once = %v, want none before enter-after", got)
	}
	if w := do(t, s, "GET", SlowPeersPath, ""); !strings.Contains(w.Body.String(), "10.0.0.5:9866") {
		t.Fatalf("/slowpeers lost the raw report: %s", w.Body)
	}
	if mustHeartbeat(t, s, report("10.0.0.5:9866")) {
		t.Fatal("heartbeat answered slow before enter-after")
	}
	clock.Advance(2 * time.Minute)
	reportBoth()
	if got := s.SlowNodes(clock.Now()); len(got) != 0 {
		t.Fatalf("SlowNodes before the next diagnosis = %v", got)
	}
	s.Diagnose(clock.Now())
	if got := strings.Join(s.SlowNodes(clock.Now()), " "); got != "10.0.0.5:9866" {
		t.Fatalf("SlowNodes after enter-after = %q", got)
	}
	if !mustHeartbeat(t, s, report("10.0.0.5:9866")) || gauge() != "1" {
		t.Fatal("heartbeat or gauge does not show the slow set")
	}
	// The reporters stop naming it: it stays for leave-after, then goes.
	mustHeartbeat(t, s, report("10.0.0.2:9866"))
	mustHeartbeat(t, s, report("10.0.0.3:9866"))
	clock.Advance(4 * time.Minute)
	s.Diagnose(clock.Now())
	if got := s.SlowNodes(clock.Now()); len(got) != 1 {
		t.Fatalf("SlowNodes in the quiet period = %v", got)
	}
	clock.Advance(time.Minute)
	s.Diagnose(clock.Now())
	if got := s.SlowNodes(clock.Now()); len(got) != 0 || gauge() != "0" {
		t.Fatalf("SlowNodes after leave-after = %v", got)
	}
}

// A member that dies leaves the slow set at the Step that finds it dead,
// not after leave-after, with one exit line and a count, and reports that
// still name it do not bring it back while it is dead; alive again, it
// enters again as any node does.
func TestDeadLeavesSlowSet(t *testing.T) {
	s, clock, logs := newTestServer(t, func(c *Config) {
		c.SlowSet = tracker.SlowSetConfig{EnterReporters: 2, LeaveAfter: time.Hour}
	})
	const slow = "10.0.0.5:9866"
	reportBoth := func() {
		mustHeartbeat(t, s, report("10.0.0.2:9866", slow))
		mustHeartbeat(t, s, report("10.0.0.3:9866", slow))
	}
	mustHeartbeat(t, s, report(slow))
	reportBoth()
	s.Diagnose(clock.Now())
	if !s.slowSet.Contains(slow) {
		t.Fatal("the slow node did not enter")
	}
	// It dies; the reporters go on naming it (each report is fresh).
	for range int(s.cfg.DeadAfter()/time.Minute) + 1 {
		clock.Advance(time.Minute)
		reportBoth()
		s.Diagnose(clock.Now())
		s.Step(clock.Now())
	}
	reportBoth()
	s.Diagnose(clock.Now())
	if st, _ := s.nodes.State(clock.Now(), slow); st != Dead {
		t.Fatalf("state %q, want dead", st)
	}
	if s.slowSet.Contains(slow) || s.slowSet.Len() != 0 {
		t.Fatalf("a dead node stays in the slow set: %v", s.slowSet.Nodes())
	}
	left := logLines(logs, "slow set left")
	if len(left) != 1 || !strings.Contains(left[0], "node="+slow) || !strings.Contains(left[0], "reason=\"dead: no heartbeat for 10m30s\"") {
		t.Fatalf("exit lines: %q", left)
	}
	if _, m := scrape(t, s); m[`slowpeer_slow_set_changes_total{set="nodes",change="left"}`] != 1 {
		t.Fatalf("exit not counted: %v", m)
	}
	// Back: found again, it enters again.
	mustHeartbeat(t, s, report(slow))
	reportBoth()
	s.Diagnose(clock.Now())
	if !s.slowSet.Contains(slow) {
		t.Fatal("a node that came back and is found slow did not enter again")
	}
}
