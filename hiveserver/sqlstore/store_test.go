package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// TestStoreMerge pins the row of the original design that a sequence of
// events leaves, on every store, whether the events come in one
// transaction or one each.
func TestStoreMerge(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ctx := context.Background()
		n := 0
		f := func(name string, events []hiveserver.Event, want hiveserver.Query) {
			t.Helper()
			for _, batched := range []bool{true, false} {
				n++
				id := fmt.Sprintf("q%d", n)
				for i := range events {
					events[i].QueryID = id
				}
				if batched {
					if _, err := s.Commit(ctx, events); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				} else {
					for _, e := range events {
						if _, err := s.Commit(ctx, []hiveserver.Event{e}); err != nil {
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
		e := func(hook hiveserver.Hook, job, text string, ms int64) hiveserver.Event {
			return hiveserver.Event{Server: "hs1:10000", Hook: hook, QueryStr: text, JobName: job, TimeMs: ms}
		}
		f("start", []hiveserver.Event{e(hiveserver.PreExec, "j", "SELECT 1", 100)},
			hiveserver.Query{Hook: hiveserver.PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("start then end", []hiveserver.Event{e(hiveserver.PreExec, "j", "SELECT 1", 100), e(hiveserver.PostExec, "j", "SELECT 1", 250)},
			hiveserver.Query{Hook: hiveserver.PostExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
		f("end without start is kept", []hiveserver.Event{e(hiveserver.OnFailure, "j", "SELECT 1", 250)},
			hiveserver.Query{Hook: hiveserver.OnFailure, QueryStr: "SELECT 1", JobName: "j", PostTimeMs: 250})
		f("late start completes the row", []hiveserver.Event{e(hiveserver.PostExec, "j", "SELECT 1", 250), e(hiveserver.PreExec, "j", "SELECT 1", 100)},
			hiveserver.Query{Hook: hiveserver.PostExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100, PostTimeMs: 250})
		f("the same event twice", []hiveserver.Event{e(hiveserver.PreExec, "j", "SELECT 1", 100), e(hiveserver.PreExec, "j", "SELECT 1", 100)},
			hiveserver.Query{Hook: hiveserver.PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("the first start wins", []hiveserver.Event{e(hiveserver.PreExec, "j", "SELECT 1", 100), e(hiveserver.PreExec, "k", "SELECT 2", 90)},
			hiveserver.Query{Hook: hiveserver.PreExec, QueryStr: "SELECT 1", JobName: "j", PreTimeMs: 100})
		f("the first end wins", []hiveserver.Event{e(hiveserver.PreExec, "j", "S", 100), e(hiveserver.OnFailure, "j", "S", 300), e(hiveserver.PostExec, "j", "S", 200)},
			hiveserver.Query{Hook: hiveserver.OnFailure, QueryStr: "S", JobName: "j", PreTimeMs: 100, PostTimeMs: 300})
		f("empty fields are filled later", []hiveserver.Event{e(hiveserver.PreExec, "", "", 100), e(hiveserver.PostExec, "j", "SELECT 3", 200)},
			hiveserver.Query{Hook: hiveserver.PostExec, QueryStr: "SELECT 3", JobName: "j", PreTimeMs: 100, PostTimeMs: 200})
		text := "SELECT '名字', '😀', '%2B', '+', '&' FROM 用户表\n\t-- 北京"
		f("any text", []hiveserver.Event{e(hiveserver.PreExec, "日报 名", text, 100)},
			hiveserver.Query{Hook: hiveserver.PreExec, QueryStr: text, JobName: "日报 名", PreTimeMs: 100})
		long := strings.Repeat("长", hiveserver.MaxQueryStrBytes/3)
		f("longest text", []hiveserver.Event{e(hiveserver.PreExec, strings.Repeat("j", hiveserver.MaxJobNameBytes), long, 100)},
			hiveserver.Query{Hook: hiveserver.PreExec, QueryStr: long, JobName: strings.Repeat("j", hiveserver.MaxJobNameBytes), PreTimeMs: 100})

		if _, ok, err := s.Lookup(ctx, "hs1:10000", "never"); ok || err != nil {
			t.Errorf("Lookup of a missing row: %v, %v", ok, err)
		}
	})
}

// TestStoreRandomEvents applies random event sequences (repeats, ends
// before starts, conflicting events) in random batches to the store and
// to a hiveserver.MemoryStore, the reference: every commit must return
// the same changes, every load the same snapshot, and hive_jobs must
// equal the history recomputed from hive_queries.
func TestStoreRandomEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ref := &hiveserver.MemoryStore{}
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(1, 2))
		servers := []string{"hs1:10000", "hs2:10000", "[::1]:10001"}
		jobs := []string{"", "daily", "hourly", "日报"}
		hooks := []hiveserver.Hook{hiveserver.PreExec, hiveserver.PreExec, hiveserver.PostExec, hiveserver.OnFailure}
		for round := range 30 {
			var events []hiveserver.Event
			for range 1 + rng.IntN(40) {
				events = append(events, hiveserver.Event{
					Server:   servers[rng.IntN(len(servers))],
					Hook:     hooks[rng.IntN(len(hooks))],
					QueryID:  fmt.Sprintf("q%d", rng.IntN(25)),
					QueryStr: []string{"", "SELECT 1"}[rng.IntN(2)],
					JobName:  jobs[rng.IntN(len(jobs))],
					TimeMs:   at(time.Duration(rng.IntN(3600)) * time.Second),
				})
			}
			got, err := s.Commit(ctx, events)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ref.Commit(ctx, events)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: changes\n%+v\nreference\n%+v", round, got, want)
			}
			checkStoreHistory(t, s)
			if got, want := loadSorted(t, s), loadSorted(t, ref); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: snapshot\n%+v\nreference\n%+v", round, got, want)
			}
		}
	})
}

// loadSorted loads s, its open statements sorted and its zero job
// histories left out.
func loadSorted(t *testing.T, s hiveserver.Store) hiveserver.Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(snap.Open, func(a, b hiveserver.Query) int {
		return strings.Compare(a.Server+" "+a.QueryID, b.Server+" "+b.QueryID)
	})
	maps.DeleteFunc(snap.Jobs, func(_ string, t hiveserver.JobTotals) bool { return t == hiveserver.JobTotals{} })
	return snap
}

// checkStoreHistory recomputes every job's history from hive_queries.
func checkStoreHistory(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.db.QueryContext(ctx, `SELECT jobName, preTime, postTime FROM hive_queries`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]hiveserver.JobTotals{}
	for rows.Next() {
		var job string
		var pre, post *int64
		if err := rows.Scan(&job, &pre, &post); err != nil {
			t.Fatal(err)
		}
		if job != "" && pre != nil && post != nil {
			t := want[job]
			want[job] = hiveserver.JobTotals{Finished: t.Finished + 1, TotalMs: t.TotalMs + max(0, *post-*pre)}
		}
	}
	rows.Close()
	if got := loadSorted(t, s).Jobs; !reflect.DeepEqual(got, want) {
		t.Fatalf("hive_jobs %v, recomputed from hive_queries %v", got, want)
	}
}

func TestStoreReopen(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, []hiveserver.Event{ev("hs1:10000", hiveserver.PreExec, "q1", "j", at(0))}); err != nil {
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
		_, err = Open(ctx, dsn)
		if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
			t.Fatalf("open a store of a newer schema: %v", err)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	f := func(dsn, want string) {
		t.Helper()
		s, err := Open(context.Background(), dsn)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%q) works", dsn)
		}
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q): %v; want %q and no password", dsn, err, want)
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
