package sqlstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/hiveserver/storetest"
)

// tables lists the tables of the store's database, sorted.
func tables(t testing.TB, s *Store) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if s.d == mysqlDialect {
		q = `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()`
	}
	rows, err := s.db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// connectStore connects to dsn without migrating, and closes it at the
// end of the test.
func connectStore(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A follower (Connect) creates no table and stores nothing until the
// leader (Migrate) has brought the schema to the version it knows; then it
// serves without having written to the schema.
func TestFollowerWaitsForSchema(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		follower := connectStore(t, dsn)
		e := storetest.Event("hs1:10000", hiveserver.PreExec, "q1", "j", storetest.At(0))
		notReady := func(what string, err error) {
			t.Helper()
			se, ok := errors.AsType[*SchemaError](err)
			if !ok || !errors.Is(err, hiveserver.ErrStoreNotReady) || se.TooNew() {
				t.Fatalf("%s before the leader migrated: %v, want a schema not ready", what, err)
			}
			if !strings.Contains(err.Error(), "schema not ready: version 0, want 1") {
				t.Errorf("%s: %q does not say which versions", what, err)
			}
		}
		_, err := follower.Snapshot(ctx)
		notReady("Snapshot", err)
		_, err = follower.Commit(ctx, []hiveserver.Event{e})
		notReady("Commit", err)
		_, _, err = follower.Lookup(ctx, "hs1:10000", "q1")
		notReady("Lookup", err)
		_, err = follower.Prune(ctx, time.Now())
		notReady("Prune", err)
		if have, want, err := follower.SchemaVersion(ctx); have != 0 || want != 1 || err != nil {
			t.Errorf("SchemaVersion: %d, %d, %v; want 0, 1", have, want, err)
		}
		if got := tables(t, follower); len(got) != 0 {
			t.Fatalf("a follower created tables %v", got)
		}

		leader := connectStore(t, dsn)
		if err := leader.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		migrated := tables(t, leader)
		if want := []string{"hive_jobs", "hive_queries", "hive_servers", "slowpeer_schema"}; !slices.Equal(migrated, want) {
			t.Fatalf("the leader made tables %v, want %v", migrated, want)
		}
		if _, err := follower.Commit(ctx, []hiveserver.Event{e}); err != nil {
			t.Fatalf("follower's commit once migrated: %v", err)
		}
		if snap, err := follower.Snapshot(ctx); err != nil || len(snap.Open) != 1 {
			t.Fatalf("follower's snapshot once migrated: %+v, %v", snap, err)
		}
		if got := tables(t, follower); !slices.Equal(got, migrated) {
			t.Errorf("tables after the follower served: %v, want %v", got, migrated)
		}
		if err := leader.Migrate(ctx); err != nil {
			t.Errorf("migrate a current schema again: %v", err)
		}
	})
}

// A schema newer than this package knows is an error that waiting does
// not cure, for the follower as for the leader.
func TestSchemaTooNew(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		leader := openStore(t, dsn)
		if _, err := leader.db.ExecContext(ctx, writeVersion, 2, schemaComponent); err != nil {
			t.Fatal(err)
		}
		tooNew := func(what string, err error) {
			t.Helper()
			se, ok := errors.AsType[*SchemaError](err)
			if !ok || !se.TooNew() || errors.Is(err, hiveserver.ErrStoreNotReady) {
				t.Fatalf("%s of a newer schema: %v", what, err)
			}
			if !strings.Contains(err.Error(), "schema version 2 is newer than this slowpeer knows (1): run a newer slowpeer") {
				t.Errorf("%s: %q", what, err)
			}
		}
		_, err := connectStore(t, dsn).Snapshot(ctx)
		tooNew("follower's Snapshot", err)
		tooNew("Migrate", connectStore(t, dsn).Migrate(ctx))
		_, err = Open(ctx, dsn)
		tooNew("Open", err)
	})
}

// A rolling upgrade: a newer leader migrates the schema under a store
// that serves already. The store reads the version again once its last
// reading is SchemaRecheck old, and from then on writes nothing: its
// commits fail with ErrStoreTooNew until the schema is one it knows.
func TestSchemaRecheckedDuringRollingUpgrade(t *testing.T) {
	forEachStore(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		old := openStore(t, dsn)
		e := storetest.Event("hs1:10000", hiveserver.PreExec, "q1", "j", storetest.At(0))
		if _, err := old.Commit(ctx, []hiveserver.Event{e}); err != nil {
			t.Fatal(err)
		}
		newer := connectStore(t, dsn)
		if _, err := newer.db.ExecContext(ctx, writeVersion, 2, schemaComponent); err != nil {
			t.Fatal(err)
		}
		// Within SchemaRecheck the old store has not looked yet.
		old.recheck = 0
		e2 := storetest.Event("hs1:10000", hiveserver.PreExec, "q2", "j", storetest.At(1))
		_, err := old.Commit(ctx, []hiveserver.Event{e2})
		if !errors.Is(err, hiveserver.ErrStoreTooNew) || !strings.Contains(err.Error(), "run a newer slowpeer") {
			t.Fatalf("commit after a newer leader migrated: %v", err)
		}
		if _, err := old.Snapshot(ctx); !errors.Is(err, hiveserver.ErrStoreTooNew) {
			t.Fatalf("snapshot after a newer leader migrated: %v", err)
		}
		var n int
		if err := old.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM hive_queries`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("rows after the refused commit: %d, %v; want the first one only", n, err)
		}
		// Back to the version it knows (a rollback of the upgrade): it serves again.
		if _, err := newer.db.ExecContext(ctx, writeVersion, 1, schemaComponent); err != nil {
			t.Fatal(err)
		}
		if _, err := old.Commit(ctx, []hiveserver.Event{e2}); err != nil {
			t.Fatalf("commit once the schema is known again: %v", err)
		}
	})
}
