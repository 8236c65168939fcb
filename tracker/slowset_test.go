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
	ch := s.Update(t0, []NodeCount{{Node: "b", Reporters: 1}, {Node: "a", Reporters: 3}})
	if !slices.Equal(ch.Entered, []string{"a", "b"}) || len(ch.Left) != 0 {
		t.Fatalf("first change %+v", ch)
	}
	ch = s.Update(t0.Add(time.Minute), []NodeCount{{Node: "b", Reporters: 1}})
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

// TestSlowSetMembersAndRemove: Members says since when and on how many
// reporters each member is in; Remove drops nodes at once, members and
// nodes in a streak, which must then be reported for EnterAfter again.
func TestSlowSetMembersAndRemove(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := NewSlowSet(SlowSetConfig{EnterAfter: 2 * time.Minute, EnterReporters: 2, LeaveAfter: time.Hour})
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	for m := range 3 {
		s.Update(at(m), []NodeCount{{Node: "a", Reporters: 2 + m}, {Node: "b", Reporters: 2}})
	}
	s.Update(at(3), []NodeCount{{Node: "b", Reporters: 4}, {Node: "c", Reporters: 2}})
	want := []Member{
		{Node: "a", Since: at(2), FoundSince: at(0), LastReported: at(2), Reporters: 4},
		{Node: "b", Since: at(2), FoundSince: at(0), LastReported: at(3), Reporters: 4},
	}
	if got := s.Members(); !slices.Equal(got, want) {
		t.Fatalf("Members = %+v\nwant %+v", got, want)
	}
	if left := s.Remove(func(n string) bool { return n != "b" }); !slices.Equal(left, []string{"a"}) {
		t.Fatalf("Remove left %v, want [a] (c was not a member)", left)
	}
	if s.Len() != 1 || !s.Contains("b") || s.Contains("a") {
		t.Fatalf("after Remove: %v", s.Nodes())
	}
	// c's streak was dropped too: two more minutes of reports from now.
	s.Update(at(4), []NodeCount{{Node: "c", Reporters: 2}})
	s.Update(at(5), []NodeCount{{Node: "c", Reporters: 2}})
	if s.Contains("c") {
		t.Fatal("c entered on the streak Remove dropped")
	}
	s.Update(at(6), []NodeCount{{Node: "c", Reporters: 2}})
	if !s.Contains("c") {
		t.Fatal("c did not enter after a new streak of EnterAfter")
	}
}

// Admit makes a member at once; it leaves LeaveAfter after the last
// admission or report, and a report keeps it as it keeps any member.
func TestSlowSetAdmit(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	s := NewSlowSet(SlowSetConfig{EnterAfter: 3 * time.Minute, EnterReporters: 2, LeaveAfter: 10 * time.Minute})
	if !s.Admit(t0, "a") || s.Admit(t0.Add(time.Second), "a") {
		t.Fatal("Admit: entered wrong")
	}
	if !s.Contains("a") || s.Len() != 1 {
		t.Fatalf("after Admit: members %v", s.Nodes())
	}
	m := s.Members()[0]
	if !m.Since.Equal(t0) || !m.LastReported.Equal(t0.Add(time.Second)) {
		t.Fatalf("member %+v", m)
	}
	// Unreported, it stays LeaveAfter after the last admission.
	if ch := s.Update(t0.Add(10*time.Minute), nil); len(ch.Left) != 0 {
		t.Fatalf("left before LeaveAfter: %+v", ch)
	}
	s.Admit(t0.Add(5*time.Minute), "a")
	if ch := s.Update(t0.Add(14*time.Minute), nil); len(ch.Left) != 0 {
		t.Fatalf("left before LeaveAfter of the second admission: %+v", ch)
	}
	if ch := s.Update(t0.Add(15*time.Minute), nil); !slices.Equal(ch.Left, []string{"a"}) {
		t.Fatalf("did not leave: %+v", ch)
	}
	// An admission in the middle of a streak keeps the streak's start.
	s.Update(t0.Add(20*time.Minute), []NodeCount{{Node: "b", Reporters: 2}})
	s.Admit(t0.Add(21*time.Minute), "b")
	if m := s.Members(); len(m) != 1 || !m[0].FoundSince.Equal(t0.Add(20*time.Minute)) || !m[0].Since.Equal(t0.Add(21*time.Minute)) {
		t.Fatalf("members %+v", m)
	}
}

// TestLinkSlowSetConfig: links enter on one confirmed finding at once and
// leave as nodes do.
func TestLinkSlowSetConfig(t *testing.T) {
	got := LinkSlowSetConfig(DefaultSlowSetConfig())
	want := SlowSetConfig{EnterReporters: 1, LeaveAfter: DefaultLeaveAfter}
	if got != want {
		t.Fatalf("LinkSlowSetConfig(default) = %+v, want %+v", got, want)
	}
}
