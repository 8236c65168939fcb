package tracker

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSlowSetHysteresis drives a SlowSet minute by minute through a table
// of reporter counts and checks who is a member after each step.
func TestSlowSetHysteresis(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	// steps[i] is the counts at t0 + i minutes, "node=reporters ..."; want[i]
	// the members after that Update, space-separated.
	f := func(name string, cfg SlowSetConfig, steps, want []string) {
		t.Helper()
		s := NewSlowSet(cfg)
		for i, step := range steps {
			var counts []NodeCount
			for _, f := range strings.Fields(step) {
				node, n, _ := strings.Cut(f, "=")
				counts = append(counts, NodeCount{Node: node, Reporters: int(n[0] - '0')})
			}
			s.Update(t0.Add(time.Duration(i)*time.Minute), counts)
			if got := strings.Join(s.Nodes(), " "); got != want[i] {
				t.Fatalf("%s: after step %d (%q) members %q, want %q", name, i, step, got, want[i])
			}
			if s.Len() != len(strings.Fields(want[i])) {
				t.Fatalf("%s: step %d: Len %d", name, i, s.Len())
			}
		}
	}
	cfg := SlowSetConfig{EnterAfter: 2 * time.Minute, EnterReporters: 2, LeaveAfter: 3 * time.Minute}
	f("enters after two minutes of reports", cfg,
		[]string{"a=2", "a=3", "a=2", "a=2"},
		[]string{"", "", "a", "a"})
	f("one reporter is not enough", cfg,
		[]string{"a=1", "a=1", "a=1", "a=1"},
		[]string{"", "", "", ""})
	f("a break restarts the streak", cfg,
		[]string{"a=2", "a=2", "", "a=2", "a=2", "a=2"},
		[]string{"", "", "", "", "", "a"})
	f("a dip below the reporters is a break", cfg,
		[]string{"a=2", "a=2", "a=1", "a=2", "a=2", "a=2"},
		[]string{"", "", "", "", "", "a"})
	f("leaves after three quiet minutes, not before", cfg,
		[]string{"a=2", "a=2", "a=2", "", "a=1", "", ""},
		[]string{"", "", "a", "a", "a", "", ""})
	f("a report in the quiet period keeps it", cfg,
		[]string{"a=2", "a=2", "a=2", "", "", "a=2", "", "", ""},
		[]string{"", "", "a", "a", "a", "a", "a", "a", ""})
	f("nodes are independent", cfg,
		[]string{"a=2", "a=2 b=5", "a=2 b=5", "b=5", "b=5", "b=5", ""},
		[]string{"", "", "a", "a b", "a b", "b", "b"})
	f("raw: Hadoop's meaning", RawSlowSetConfig(),
		[]string{"a=1", "", "a=1 b=2", "b=1"},
		[]string{"a", "", "a b", "b"})
}

// TestSlowSetChange checks what Update returns.
func TestSlowSetChange(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := NewSlowSet(RawSlowSetConfig())
	ch := s.Update(t0, []NodeCount{{"b", 1}, {"a", 3}})
	if !slices.Equal(ch.Entered, []string{"a", "b"}) || len(ch.Left) != 0 {
		t.Fatalf("first change %+v", ch)
	}
	ch = s.Update(t0.Add(time.Minute), []NodeCount{{"b", 1}})
	if len(ch.Entered) != 0 || !slices.Equal(ch.Left, []string{"a"}) {
		t.Fatalf("second change %+v", ch)
	}
	if !s.Contains("b") || s.Contains("a") || s.Contains("c") {
		t.Fatalf("members %v", s.Nodes())
	}
}

// TestSlowSetConfigValidate checks that each broken rule is named.
func TestSlowSetConfigValidate(t *testing.T) {
	if err := DefaultSlowSetConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []SlowSetConfig{
		{EnterAfter: -1, EnterReporters: 1},
		{EnterReporters: 0},
		{EnterReporters: 1, LeaveAfter: -1},
	} {
		if c.Validate() == nil {
			t.Fatalf("%+v validated", c)
		}
	}
}
