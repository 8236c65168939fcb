package datanode

import (
	"slices"
	"testing"
	"time"
)

// Services come and go while the agent runs: a new one gets heartbeats,
// one gone from the registry keeps them while it answers and is dropped
// once it does not, and one that stays keeps its schedule (its status
// survives the change).
func TestAgentSetNameNodes(t *testing.T) {
	a1, a2 := newFakeService(t, false), newFakeService(t, false)
	cfg := DefaultConfig()
	cfg.ID = "127.0.0.1:9866"
	cfg.FollowNameNodes = true
	cfg.HeartbeatInterval, cfg.MaxRetryBackoff = 50*time.Millisecond, 100*time.Millisecond
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop := startAgent(t, a)
	if len(a.Services()) != 0 {
		t.Fatalf("services before any: %+v", a.Services())
	}
	if err := a.SetNameNodes([]string{a1.srv.URL}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "heartbeats to the first service", func() bool { return len(a1.Beats()) >= 2 }, a1)
	if err := a.SetNameNodes([]string{a1.srv.URL, a2.srv.URL, a2.srv.URL}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "heartbeats to the second service", func() bool { return len(a2.Beats()) >= 2 }, a2)
	if st := a.Services(); len(st) != 2 || st[0].URL != a1.srv.URL || st[0].Heartbeats < 2 {
		t.Fatalf("services after adding: %+v", st)
	}
	// Gone from the registry, the first keeps its heartbeats while it
	// answers; back, it stays; gone again and dead, it is dropped.
	if err := a.SetNameNodes([]string{a2.srv.URL}); err != nil {
		t.Fatal(err)
	}
	left := len(a1.Beats())
	waitFor(t, 10*time.Second, "heartbeats to the service that left but answers", func() bool { return len(a1.Beats()) >= left+3 }, a1)
	if err := a.SetNameNodes([]string{a1.srv.URL, a2.srv.URL}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetNameNodes([]string{a2.srv.URL}); err != nil {
		t.Fatal(err)
	}
	a1.srv.Close()
	waitFor(t, 10*time.Second, "the dead service dropped", func() bool { return len(a.Services()) == 1 }, a2)
	dropped := len(a1.Beats())
	before := len(a2.Beats())
	waitFor(t, 10*time.Second, "more heartbeats to the service that stays", func() bool { return len(a2.Beats()) >= before+3 }, a2)
	if n := len(a1.Beats()); n != dropped {
		t.Errorf("the dropped service got %d heartbeats after it was dropped", n-dropped)
	}
	if st := a.Services(); len(st) != 1 || st[0].URL != a2.srv.URL {
		t.Fatalf("services after dropping: %+v", st)
	}
	if err := a.SetNameNodes([]string{"not a url"}); err == nil {
		t.Error("a bad URL was accepted")
	}
	if got := a.Services(); !slices.EqualFunc(got, []ServiceStatus{{URL: a2.srv.URL}}, func(x, y ServiceStatus) bool { return x.URL == y.URL }) {
		t.Errorf("a refused change changed the set: %+v", got)
	}
	stop()
}
