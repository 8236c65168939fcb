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
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// TestStore runs the tests every store must pass, on SQLite and on MySQL.
func TestStore(t *testing.T) {
	open := func(dsn func(testing.TB) string) func(*testing.T) storetest.Store {
		return func(t *testing.T) storetest.Store { return openStore(t, dsn(t)) }
	}
	t.Run("sqlite", func(t *testing.T) { storetest.Run(t, open(sqliteDSN)) })
	t.Run("mysql", func(t *testing.T) { storetest.Run(t, open(mysqlDSN)) })
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
					TimeMs:   storetest.At(time.Duration(rng.IntN(3600)) * time.Second),
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
		if _, err := s.Commit(ctx, []hiveserver.Event{storetest.Event("hs1:10000", hiveserver.PreExec, "q1", "j", storetest.At(0))}); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = openStore(t, dsn) // migrations see version 1 and do nothing
		var v int
		if err := s.db.QueryRowContext(ctx, readVersion, schemaComponent).Scan(&v); err != nil || v != 1 {
			t.Fatalf("schema version %d, %v; want 1", v, err)
		}
		if q, ok, err := s.Lookup(ctx, "hs1:10000", "q1"); !ok || err != nil || q.PreTimeMs != storetest.At(0) {
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
