package datanode

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestConfirmBudget(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := ConfirmBudget{PerMinute: 60}
	f := func(at time.Duration, blocks int, want bool) {
		t.Helper()
		if got := b.Take(t0.Add(at), blocks); got != want {
			t.Fatalf("Take(%v, %d) = %v, want %v", at, blocks, got, want)
		}
	}
	f(0, 30, true)
	f(0, 30, true)
	f(0, 1, false) // spent
	f(500*time.Millisecond, 1, false)
	f(time.Second, 1, true) // a block a second comes back
	f(time.Second, 1, false)
	f(10*time.Second, 10, false)
	f(10*time.Second, 9, true)
	f(time.Hour, 61, false) // never more than a minute's worth
	f(time.Hour, 60, true)
	f(time.Hour-time.Minute, 1, false) // a clock that went back adds nothing

	none := ConfirmBudget{}
	if none.Take(t0, 1) {
		t.Fatal("a budget of 0 gave a block")
	}
}

// Requests for peers the agent does not probe, over the budget or
// malformed are ignored, counted and logged once each; the others go to
// the prober in one job.
func TestConfirmerObey(t *testing.T) {
	var logs bytes.Buffer
	var c counters
	cfg := DefaultConfig()
	cfg.ProbeConfirmBudget = 5
	k := newConfirmer(cfg, []string{"a:1", "b:1"}, true, &c, slog.New(slog.NewTextHandler(&logs, nil)))
	t0 := time.Unix(1000, 0)
	done := func() {}
	reqs := []reports.ProbeRequest{{Node: "a:1", Blocks: 3, Round: 1}, {Node: "z:1", Blocks: 1, Round: 1},
		{Node: "b:1", Blocks: 3, Round: 1}}
	if !k.obey(t0, reqs, []string{"probe[3]: blocks: 9, want 1 to 8"}, done) {
		t.Fatal("obey ran nothing")
	}
	job := <-k.jobs
	if len(job.requests) != 1 || job.requests[0].Node != "a:1" {
		t.Fatalf("job %+v, want a:1's request only (z:1 unknown, b:1 over the budget)", job.requests)
	}
	if n := c.probeRequestsIgnored.Load(); n != 3 {
		t.Fatalf("%d requests ignored, want 3", n)
	}
	k.obey(t0, []reports.ProbeRequest{{Node: "z:1", Blocks: 1, Round: 2}}, nil, done)
	if n := c.probeRequestsIgnored.Load(); n != 4 {
		t.Fatalf("%d requests ignored, want 4", n)
	}
	if n := strings.Count(logs.String(), "z:1"); n != 1 {
		t.Fatalf("the unknown peer logged %d times, want once:\n%s", n, logs.String())
	}
	for _, want := range []string{"does not probe", "slowpeer.probe.confirm.budget", "blocks: 9"} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("no %q in the logs:\n%s", want, logs.String())
		}
	}

	// An agent that does not probe (-hadoop-jmx) ignores every request.
	k = newConfirmer(cfg, []string{"a:1"}, false, &c, discard)
	if k.obey(t0, reqs[:1], nil, done) {
		t.Fatal("an agent without probes took a request")
	}
}
