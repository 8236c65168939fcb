package hiveserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRemaining(t *testing.T) {
	c := costs{timeoutMs: 1e9, minRemainingMs: 1000, defaultMs: 60000}
	f := func(name string, j *jobStats, elapsedMs, want int64) {
		t.Helper()
		if got := c.remainingMs(j, elapsedMs); got != want {
			t.Errorf("%s: remaining %d ms, want %d", name, got, want)
		}
	}
	hist := func(finished, totalMs int64) *jobStats {
		j := &jobStats{}
		j.add(finished, totalMs)
		return j
	}
	f("no jobName", nil, 0, 60000)
	f("no finished statement yet", hist(0, 0), 5000, 60000)
	f("history cancelled out", hist(1, 100).with(-1, -100), 0, 60000)
	f("mean minus elapsed", hist(2, 20000), 4000, 6000)
	f("just started", hist(1, 30000), 0, 30000)
	f("clock skew: started in the future", hist(1, 30000), -5000, 30000)
	f("past the mean: the floor", hist(1, 30000), 45000, 1000)
	f("mean rounds down", hist(3, 10000), 0, 3333)
	f("floor above the mean", hist(1, 500), 0, 1000)
}

func (j *jobStats) with(n, ms int64) *jobStats { j.add(n, ms); return j }

func TestPick(t *testing.T) {
	s := &MemoryStore{}
	var draws []int
	p := openPicker(t, s, Config{
		Servers:  []string{"idle.example:10000"},
		RandIntN: func(n int) int { draws = append(draws, n); return n - 1 },
	})
	now := t0.Add(time.Hour)
	// History: job "etl" takes 10 minutes, "quick" 10 seconds.
	ingest(t, p,
		ev("a.example:10000", PreExec, "h1", "etl", at(0)), ev("a.example:10000", PostExec, "h1", "etl", at(10*time.Minute)),
		ev("b.example:10000", PreExec, "h2", "quick", at(0)), ev("b.example:10000", PostExec, "h2", "quick", at(10*time.Second)),
	)
	// Now running: a has one etl started 2 minutes ago (8m left); b
	// has three quick ones (1s floor each) and one unknown (1m).
	ingest(t, p,
		ev("a.example:10000", PreExec, "r1", "etl", now.Add(-2*time.Minute).UnixMilli()),
		ev("b.example:10000", PreExec, "r2", "quick", now.Add(-time.Minute).UnixMilli()),
		ev("b.example:10000", PreExec, "r3", "quick", now.Add(-time.Minute).UnixMilli()),
		ev("b.example:10000", PreExec, "r4", "quick", now.Add(-time.Minute).UnixMilli()),
		ev("b.example:10000", PreExec, "r5", "new-job", now.Add(-time.Minute).UnixMilli()),
	)
	want := []Status{
		{Server: "a.example:10000", Running: 1, LoadSeconds: 480, loadMs: 480000},
		{Server: "b.example:10000", Running: 4, LoadSeconds: 63, loadMs: 63000},
		{Server: "idle.example:10000"},
	}
	if got := p.Servers(now, nil); !reflect.DeepEqual(got, want) {
		t.Fatalf("Servers:\n got %+v\nwant %+v", got, want)
	}
	f := func(name string, slow []string, want string) {
		t.Helper()
		got, err := p.Pick(now, slow)
		if err != nil || got.Server != want {
			t.Errorf("%s: picked %+v, %v; want %s", name, got, err, want)
		}
	}
	// Reference: DatanodeManager.getSlowPeersUuidSet and
	// BlockPlacementPolicyDefault's exclude-slow-nodes: a node on a
	// host among the top slow nodes gets no new work.
	f("the idle one", nil, "idle.example:10000")
	f("least load, not fewest running", []string{"idle.example"}, "b.example:10000")
	f("slow hosts compare without case", []string{"IDLE.example", "B.EXAMPLE"}, "a.example:10000")
	if len(draws) != 0 {
		t.Errorf("no tie, yet RandIntN was called with %v", draws)
	}

	_, err := p.Pick(now, []string{"a.example", "b.example", "idle.example"})
	var ne *NoneEligibleError
	if !errors.As(err, &ne) || ne.Known != 3 || !strings.Contains(err.Error(), "all 3 known are on slow hosts") {
		t.Errorf("all slow: %v", err)
	}
	if c := p.Counters(); c.Picks != 3 || c.PicksFailed != 1 || c.Events != 9 {
		t.Errorf("counters %+v", c)
	}
}

func TestPickTies(t *testing.T) {
	s := &MemoryStore{}
	var draw int
	p := openPicker(t, s, Config{
		Servers:  []string{"c:1", "a:1", "b:1", "d:1"},
		RandIntN: func(n int) int { return draw % n },
	})
	// d runs one statement; a, b and c are idle and tie.
	ingest(t, p, ev("d:1", PreExec, "q", "", at(0)))
	for i, want := range []string{"a:1", "b:1", "c:1", "a:1"} {
		draw = i
		got, err := p.Pick(t0, nil)
		if err != nil || got.Server != want {
			t.Errorf("draw %d: picked %+v, %v; want %s", i, got, err, want)
		}
	}
	// Equal load: fewer running statements wins the tie.
	p2 := openPicker(t, &MemoryStore{}, Config{DefaultCost: time.Minute, RandIntN: func(int) int { panic("no tie") }})
	ingest(t, p2,
		ev("x:1", PreExec, "j1", "job", at(0)), ev("x:1", PostExec, "j1", "job", at(time.Minute)),
		// y: one statement of the unknown kind, 60s; x: two of "job"
		// (mean 1m) started 30s ago, 30s each: equal load, y runs fewer.
		ev("y:1", PreExec, "q1", "", at(time.Hour)),
		ev("x:1", PreExec, "q2", "job", at(time.Hour)), ev("x:1", PreExec, "q3", "job", at(time.Hour)),
	)
	got, err := p2.Pick(t0.Add(time.Hour+30*time.Second), nil)
	if err != nil || got.Server != "y:1" || got.LoadSeconds != 60 {
		t.Errorf("equal load: picked %+v, %v; want y:1 with 60s", got, err)
	}
}

func TestRanked(t *testing.T) {
	s := &MemoryStore{}
	p := openPicker(t, s, Config{Servers: []string{"c:1", "a:1", "b:1", "d:1", "e:1"}, DefaultCost: time.Minute})
	// d runs two statements, e one; a, b, c are idle and tie: by name.
	ingest(t, p, ev("d:1", PreExec, "q1", "", at(0)), ev("d:1", PreExec, "q2", "", at(0)), ev("e:1", PreExec, "q3", "", at(0)))
	f := func(slow []string, want ...string) {
		t.Helper()
		for range 3 { // the same answer every time: no random tie-break
			if got := p.Ranked(t0, slow); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("Ranked(slow %v) = %v, want %v", slow, got, want)
			}
		}
	}
	f(nil, "a:1", "b:1", "c:1", "e:1", "d:1")
	f([]string{"b", "e"}, "a:1", "c:1", "d:1")
	f([]string{"a", "b", "c", "d", "e"})
}

func TestPickNoneKnown(t *testing.T) {
	p := openPicker(t, &MemoryStore{}, Config{})
	_, err := p.Pick(t0, nil)
	var ne *NoneEligibleError
	if !errors.As(err, &ne) || ne.Known != 0 || !strings.Contains(err.Error(), "none is known") {
		t.Fatalf("no servers: %v", err)
	}
	if got := p.Servers(t0, nil); got == nil || len(got) != 0 {
		t.Fatalf("Servers of none: %#v, want an empty non-nil slice", got)
	}
}

// fakeSource is a registry whose servers the test sets.
type fakeSource struct {
	mu      sync.Mutex
	servers []string
}

func (f *fakeSource) Servers() []string { f.mu.Lock(); defer f.mu.Unlock(); return f.servers }
func (f *fakeSource) set(s ...string)   { f.mu.Lock(); defer f.mu.Unlock(); f.servers = s }

func TestKnownServers(t *testing.T) {
	src := &fakeSource{}
	p := openPicker(t, &MemoryStore{}, Config{
		Servers:      []string{"static:1"},
		Sources:      []Source{src},
		ServerExpiry: time.Hour,
		QueryTimeout: 3 * time.Hour,
	})
	names := func(now time.Time) string {
		var out []string
		for _, s := range p.Servers(now, nil) {
			out = append(out, s.Server)
		}
		return strings.Join(out, " ")
	}
	f := func(name string, now time.Time, want string) {
		t.Helper()
		if got := names(now); got != want {
			t.Errorf("%s: known %q, want %q", name, got, want)
		}
	}
	f("static only", t0, "static:1")
	src.set("zk:1", "static:1")
	f("registered", t0, "static:1 zk:1")
	ingest(t, p, ev("events:1", PreExec, "q1", "", at(0)), ev("events:1", PostExec, "q1", "", at(time.Minute)))
	ingest(t, p, ev("busy:1", PreExec, "q2", "", at(0)))
	f("senders", t0.Add(time.Minute), "busy:1 events:1 static:1 zk:1")
	f("idle sender forgotten after the expiry", t0.Add(61*time.Minute), "busy:1 static:1 zk:1")
	f("busy sender kept while it runs", t0.Add(179*time.Minute), "busy:1 static:1 zk:1")
	f("busy sender forgotten once its statement is lost", t0.Add(3*time.Hour), "static:1 zk:1")
	src.set()
	f("gone from the registry at once", t0.Add(3*time.Hour), "static:1")
}

func TestLostStatements(t *testing.T) {
	s := &MemoryStore{}
	p := loadPicker(t, s, Config{Servers: []string{"hs:1"}, QueryTimeout: time.Hour})
	stop := runPicker(t, p)
	ingest(t, p, ev("hs:1", PreExec, "q1", "", at(0)), ev("hs:1", PreExec, "q2", "", at(30*time.Minute)))
	f := func(name string, now time.Time, running, lost, total int) {
		t.Helper()
		st := p.Servers(now, nil)
		if len(st) != 1 || st[0].Running != running || st[0].Lost != lost {
			t.Errorf("%s: %+v, want running %d lost %d", name, st, running, lost)
		}
		if got := p.Lost(now); got != total {
			t.Errorf("%s: Lost %d, want %d", name, got, total)
		}
	}
	f("both running", t0.Add(59*time.Minute), 2, 0, 0)
	f("the first one is lost at the timeout", t0.Add(time.Hour), 1, 1, 1)
	f("both lost", t0.Add(2*time.Hour), 0, 2, 2)
	ingest(t, p, ev("hs:1", PostExec, "q1", "", at(3*time.Hour)))
	f("a late end takes it off the lost", t0.Add(3*time.Hour), 0, 1, 1)

	// A restart finds the lost one again.
	stop()
	p = openPicker(t, s, Config{Servers: []string{"hs:1"}, QueryTimeout: time.Hour})
	f("after a restart", t0.Add(3*time.Hour), 0, 1, 1)
}

// TestPickerMatchesReference drives a Picker with random events, repeats
// and late starts included, and compares Servers, at random times, with
// the naive reference computed from the event list.
func TestPickerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cfg := Config{QueryTimeout: 2 * time.Hour, MinRemaining: 2 * time.Second, DefaultCost: 90 * time.Second,
		ServerExpiry: 90 * time.Minute, Servers: []string{"static:1"}}
	p := openPicker(t, &MemoryStore{}, cfg)
	servers := []string{"a:1", "b:1", "c:1", "[::1]:2", "static:1"}
	jobs := []string{"", "etl", "report", "ad-hoc"}
	var events []Event
	now := t0
	for round := range 40 {
		var batch []Event
		for range 1 + rng.IntN(20) {
			hook := []Hook{PreExec, PreExec, PostExec, OnFailure}[rng.IntN(4)]
			e := ev(servers[rng.IntN(len(servers))], hook, fmt.Sprintf("q%d", rng.IntN(60)),
				jobs[rng.IntN(len(jobs))], at(time.Duration(rng.IntN(6*3600))*time.Second))
			batch = append(batch, e)
		}
		ingest(t, p, batch...)
		events = append(events, batch...)
		// Time goes forward (a lost statement stays lost), by up to 24m.
		now = now.Add(time.Duration(rng.IntN(24*60)) * time.Second)
		slow := [][]string{nil, {"a"}, {"::1", "B"}}[rng.IntN(3)]
		got := p.Servers(now, slow)
		want := referenceServers(cfg, cfg.Servers, events, now, slow)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d at %v:\n got %+v\nwant %+v", round, now.Sub(t0), got, want)
		}
	}
}
