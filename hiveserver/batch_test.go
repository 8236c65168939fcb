package hiveserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestMergeBatchChanges pins what one batch returns: a change per event
// that changed its row, without text; each changed row once, in the
// order of its first change; the job deltas; the servers' latest event.
func TestMergeBatchChanges(t *testing.T) {
	stored := map[QueryKey]Query{
		{"a:1", "done"}: {Server: "a:1", QueryID: "done", Hook: PostExec, QueryStr: "S", JobName: "j", PreTimeMs: 100, PostTimeMs: 300},
		{"a:1", "open"}: {Server: "a:1", QueryID: "open", Hook: PreExec, QueryStr: "S", JobName: "j", PreTimeMs: 100},
	}
	b := MergeBatch(stored, []Event{
		ev("b:1", PreExec, "new", "k", 50),
		ev("a:1", PostExec, "open", "j", 500),
		ev("a:1", PostExec, "done", "j", 900), // the first end won: nothing
		ev("b:1", PostExec, "new", "k", 80),
	})
	open := stored[QueryKey{"a:1", "open"}]
	open.QueryStr = ""
	want := Batch{
		Changes: []Change{
			{After: Query{Server: "b:1", QueryID: "new", Hook: PreExec, JobName: "k", PreTimeMs: 50}, EventMs: 50},
			{Before: open, Existed: true, After: Query{Server: "a:1", QueryID: "open", Hook: PostExec, JobName: "j", PreTimeMs: 100, PostTimeMs: 500}, EventMs: 500},
			{Before: Query{Server: "b:1", QueryID: "new", Hook: PreExec, JobName: "k", PreTimeMs: 50}, Existed: true,
				After: Query{Server: "b:1", QueryID: "new", Hook: PostExec, JobName: "k", PreTimeMs: 50, PostTimeMs: 80}, EventMs: 80},
		},
		Rows: []Query{
			{Server: "b:1", QueryID: "new", Hook: PostExec, QueryStr: "SELECT 'new'", JobName: "k", PreTimeMs: 50, PostTimeMs: 80},
			{Server: "a:1", QueryID: "open", Hook: PostExec, QueryStr: "S", JobName: "j", PreTimeMs: 100, PostTimeMs: 500},
		},
		Jobs:    map[string]JobTotals{"j": {1, 400}, "k": {1, 30}},
		Servers: map[string]int64{"a:1": 500, "b:1": 80},
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("MergeBatch:\n got %+v\nwant %+v", b, want)
	}
	if len(stored) != 2 || stored[QueryKey{"a:1", "open"}].PostTimeMs != 0 {
		t.Errorf("MergeBatch modified stored: %+v", stored)
	}
}

// TestWorkloadMatchesStore applies random event sequences (repeats, ends
// before starts, conflicting events) in random batches: the workload
// built incrementally from the changes must equal the workload loaded
// afresh, and the stored job histories those recomputed from the rows.
func TestWorkloadMatchesStore(t *testing.T) {
	s := &MemoryStore{}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	w := newWorkload(Snapshot{})
	for round := range 50 {
		changes, err := s.Commit(ctx, randomEvents(rng))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			w.apply(c)
		}
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := describe(w), describe(newWorkload(snap)); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: incremental workload\n%v\nloaded workload\n%v", round, got, want)
		}
		want := map[string]JobTotals{}
		s.mu.Lock()
		for _, q := range s.rows {
			if job, ms, ok := q.history(); ok {
				t := want[job]
				want[job] = JobTotals{t.Finished + 1, t.TotalMs + ms}
			}
		}
		s.mu.Unlock()
		got := map[string]JobTotals{}
		for job, t := range snap.Jobs {
			if t != (JobTotals{}) {
				got[job] = t
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: job histories %v, recomputed from the rows %v", round, got, want)
		}
	}
}

// randomEvents is up to 40 events on few statements, so that they
// repeat, conflict and arrive out of order.
func randomEvents(rng *rand.Rand) []Event {
	servers := []string{"hs1:10000", "hs2:10000", "[::1]:10001"}
	jobs := []string{"", "daily", "hourly", "日报"}
	hooks := []Hook{PreExec, PreExec, PostExec, OnFailure}
	var events []Event
	for range 1 + rng.IntN(40) {
		events = append(events, Event{
			Server:   servers[rng.IntN(len(servers))],
			Hook:     hooks[rng.IntN(len(hooks))],
			QueryID:  fmt.Sprintf("q%d", rng.IntN(25)),
			QueryStr: []string{"", "SELECT 1"}[rng.IntN(2)],
			JobName:  jobs[rng.IntN(len(jobs))],
			TimeMs:   at(time.Duration(rng.IntN(3600)) * time.Second),
		})
	}
	return events
}

// describe renders a workload as plain values for comparison.
func describe(w *workload) map[string]string {
	out := map[string]string{}
	for name, s := range w.servers {
		var qs []string
		for _, q := range s.running {
			j := JobTotals{}
			if q.job != nil {
				j = JobTotals{q.job.finished, q.job.totalMs}
			}
			qs = append(qs, fmt.Sprintf("%s@%d%v", q.id, q.preMs, j))
		}
		slices.Sort(qs)
		out[name] = fmt.Sprintf("last %d running %v lost %v", s.lastEventMs, qs, s.lost)
	}
	for name, j := range w.jobs {
		if j.finished != 0 || j.totalMs != 0 {
			out["job "+name] = fmt.Sprintf("%d %d %d", j.finished, j.totalMs, j.meanMs)
		}
	}
	return out
}
