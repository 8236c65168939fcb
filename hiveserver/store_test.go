package hiveserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStoreMerge pins the row of the original design that a sequence of
// events leaves, on every store, whether the events come in one
// transaction or one each.
func TestStoreMerge(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ctx := context.Background()
		n := 0
		f := func(name string, events []Event, want Query) {
			t.Helper()
			for _, batched := range []bool{true, false} {
				n++
				id := fmt.Sprintf("q%d", n)
				for i := range events {
					events[i].QueryID = id
				}
				if batched {
					if _, err := s.commit(ctx, events); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				} else {
					for _, e := range events {
						if _, err := s.commit(ctx, []Event{e}); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
					}
				}
				got, ok, err := s.Lookup(ctx, "hs1:10000", id)
				w := want
				w.Server, w.QueryID = "hs1:10000", id
				if err != nil || !ok || got != w {
					t.Errorf("%s (batched %v):\n got %+v, %v, %v\nwant %+v", name, batched, got, ok, err, w)
				}
			}
		}
		e := func(hook Hook, job, text string, ms int64) Event {
			return Event{Server: "hs1:10000", Hook: hook, QueryStr: text, JobName: job, TimeMs: ms}
		}
		f("start", []Event{e(PreExec, "j", "SELECT 1", 100)},
			Query{Hook: PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("start then end", []Event{e(PreExec, "j", "SELECT 1", 100), e(PostExec, "j", "SELECT 1", 250)},
			Query{Hook: PostExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
		f("end without start is kept", []Event{e(OnFailure, "j", "SELECT 1", 250)},
			Query{Hook: OnFailure, QueryStr: "SELECT 1", JobName: "j", PostTimeMs: 250})
		f("late start completes the row", []Event{e(PostExec, "j", "SELECT 1", 250), e(PreExec, "j", "SELECT 1", 100)},
			Query{Hook: PostExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
		f("the same event twice", []Event{e(PreExec, "j", "SELECT 1", 100), e(PreExec, "j", "SELECT 1", 100)},
			Query{Hook: PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("the first start wins", []Event{e(PreExec, "j", "SELECT 1", 100), e(PreExec, "k", "SELECT 2", 90)},
			Query{Hook: PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("the first end wins", []Event{e(PreExec, "j", "S", 100), e(OnFailure, "j", "S", 300), e(PostExec, "j", "S", 200)},
			Query{Hook: OnFailure, QueryStr: "S", JobName: "j", PreTimeMs: 100, PostTimeMs: 300})
		f("empty fields are filled later", []Event{e(PreExec, "", "", 100), e(PostExec, "j", "SELECT 3", 200)},
			Query{Hook: PostExec, QueryStr: "SELECT 3", JobName: "j", PreTimeMs: 100, PostTimeMs: 200})
		text := "SELECT '名字', '😀', '%2B', '+', '&' FROM 用户表\n\t-- 北京"
		f("any text", []Event{e(PreExec, "日报 名", text, 100)},
			Query{Hook: PreExec, QueryStr: text, JobName: "日报 名", PreTimeMs: 100})
		long := strings.Repeat("长", MaxQueryStrBytes/3)
		f("longest text", []Event{e(PreExec, strings.Repeat("j", MaxJobNameBytes), long, 100)},
			Query{Hook: PreExec, QueryStr: long, JobName: strings.Repeat("j", MaxJobNameBytes), PreTimeMs: 100})

		if _, ok, err := s.Lookup(ctx, "hs1:10000", "never"); ok || err != nil {
			t.Errorf("Lookup of a missing row: %v, %v", ok, err)
		}
	})
}

// TestStoreRandomEvents applies random event sequences (repeats, ends
// before starts, conflicting events) in random batches and checks the
// store against a naive reference: hive_jobs must equal the history
// recomputed from hive_queries, and the workload built incrementally from
// the commits must equal the workload loaded afresh.
func TestStoreRandomEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		servers := []string{"hs1:10000", "hs2:10000", "[::1]:10001"}
		jobs := []string{"", "daily", "hourly", "日报"}
		hooks := []Hook{PreExec, PreExec, PostExec, OnFailure}
		snap, err := s.load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w := newWorkload(snap)
		for round := range 30 {
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
			changes, err := s.commit(ctx, events)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				w.apply(c)
			}
			checkStoreHistory(t, s)
			snap, err := s.load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describe(w), describe(newWorkload(snap)); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: incremental workload\n%v\nloaded workload\n%v", round, got, want)
			}
		}
	})
}

// checkStoreHistory recomputes every job's history from hive_queries.
func checkStoreHistory(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.db.QueryContext(ctx, `SELECT jobName, preTime, postTime FROM hive_queries`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]jobTotals{}
	for rows.Next() {
		var q Query
		var pre, post *int64
		if err := rows.Scan(&q.JobName, &pre, &post); err != nil {
			t.Fatal(err)
		}
		if pre != nil {
			q.PreTimeMs = *pre
		}
		if post != nil {
			q.PostTimeMs = *post
		}
		if job, ms, ok := q.history(); ok {
			t := want[job]
			want[job] = jobTotals{t.finished + 1, t.totalMs + ms}
		}
	}
	rows.Close()
	snap, err := s.load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]jobTotals{}
	for job, t := range snap.jobs {
		if t != (jobTotals{}) {
			got[job] = t
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hive_jobs %v, recomputed from hive_queries %v", got, want)
	}
}

// describe renders a workload as plain values for comparison.
func describe(w *workload) map[string]string {
	out := map[string]string{}
	for name, s := range w.servers {
		var qs []string
		for _, q := range s.running {
			j := jobTotals{}
			if q.job != nil {
				j = jobTotals{q.job.finished, q.job.totalMs}
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

func TestStoreReopen(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := OpenStore(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.commit(ctx, []Event{ev("hs1:10000", PreExec, "q1", "j", at(0))}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = openStore(t, dsn) // migrations see version 1 and do nothing
		var v int
		if err := s.db.QueryRowContext(ctx, readVersion, schemaComponent).Scan(&v); err != nil || v != 1 {
			t.Fatalf("schema version %d, %v; want 1", v, err)
		}
		if q, ok, err := s.Lookup(ctx, "hs1:10000", "q1"); !ok || err != nil || q.PreTimeMs != at(0) {
			t.Fatalf("after reopen: %+v, %v, %v", q, ok, err)
		}
		if _, err := s.db.ExecContext(ctx, writeVersion, 99, schemaComponent); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err = OpenStore(ctx, dsn)
		if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
			t.Fatalf("open a store of a newer schema: %v", err)
		}
	})
}

func TestOpenStoreErrors(t *testing.T) {
	f := func(dsn, want string) {
		t.Helper()
		s, err := OpenStore(context.Background(), dsn)
		if err == nil {
			s.Close()
			t.Fatalf("OpenStore(%q) works", dsn)
		}
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("OpenStore(%q): %v; want %q and no password", dsn, err, want)
		}
	}
	f("", "is not sqlite:PATH or mysql:DSN")
	f("/tmp/x.db", "is not sqlite:PATH or mysql:DSN")
	f("postgres:x", "is not sqlite:PATH or mysql:DSN")
	f("sqlite:", "empty path")
	f("sqlite:/tmp/a?b.db", "not allowed")
	f("sqlite:"+t.TempDir()+"/missing/dir/x.db", "open store")
	f("mysql:u:secret@tcp(127.0.0.1:1)/", "names no database")
	f("mysql:u:secret@tcp(127.0.0.1:1)/db", "mysql:127.0.0.1:1/db")
	f("mysql:not a dsn", "mysql DSN")
}
