package hiveserver

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mysqlDSNEnv names the go-sql-driver DSN of a MySQL or MariaDB server
// whose user may create databases; without it the MySQL half of the store
// tests is skipped (it fails when SLOWPEER_REQUIRE_SERVICES=1, as in CI).
const mysqlDSNEnv = "SLOWPEER_TEST_MYSQL_DSN"

// forEachStore runs test on every store kind: SQLite always, MySQL when
// SLOWPEER_TEST_MYSQL_DSN is set. dsn names a new, empty store.
func forEachStore(t *testing.T, test func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { test(t, sqliteDSN(t)) })
	t.Run("mysql", func(t *testing.T) { test(t, mysqlDSN(t)) })
}

func sqliteDSN(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "hive.db")
}

var mysqlDBs atomic.Int64

// mysqlDSN creates a database of its own for the test (tests of several
// packages may share the server at once) and drops it at the end.
func mysqlDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(mysqlDSNEnv)
	if base == "" {
		if os.Getenv("SLOWPEER_REQUIRE_SERVICES") == "1" {
			t.Fatalf("%s is not set and SLOWPEER_REQUIRE_SERVICES=1", mysqlDSNEnv)
		}
		t.Skipf("%s is not set", mysqlDSNEnv)
	}
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("%s: %v", mysqlDSNEnv, err)
	}
	admin := cfg.Clone()
	admin.DBName = ""
	conn, err := mysql.NewConnector(admin)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	name := fmt.Sprintf("slowpeer_hs_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, mysqlDBs.Add(1))
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatalf("create test database on %s: %v", cfg.Addr, err)
	}
	t.Cleanup(func() {
		conn, _ := mysql.NewConnector(admin)
		db := sql.OpenDB(conn)
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), "DROP DATABASE "+name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	cfg.DBName = name
	return "mysql:" + cfg.FormatDSN()
}

// openStore opens dsn and closes it at the end of the test.
func openStore(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := OpenStore(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openPicker opens a Picker on s with cfg (zero durations get their
// defaults) and closes it at the end of the test.
func openPicker(t testing.TB, s *Store, cfg Config) *Picker {
	t.Helper()
	def := DefaultConfig()
	for _, f := range []struct{ d, def *time.Duration }{
		{&cfg.QueryTimeout, &def.QueryTimeout}, {&cfg.MinRemaining, &def.MinRemaining},
		{&cfg.DefaultCost, &def.DefaultCost}, {&cfg.ServerExpiry, &def.ServerExpiry},
	} {
		if *f.d == 0 {
			*f.d = *f.def
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	p, err := NewPicker(context.Background(), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// t0 is the synthetic start of time of the tests.
var t0 = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus d, in milliseconds since the epoch.
func at(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

// ev is an event with a made-up statement text.
func ev(server string, hook Hook, id, job string, timeMs int64) Event {
	return Event{Server: server, Hook: hook, QueryID: id, QueryStr: "SELECT '" + id + "'", JobName: job, TimeMs: timeMs}
}

func ingest(t testing.TB, p *Picker, events ...Event) {
	t.Helper()
	for _, e := range events {
		if err := p.Ingest(context.Background(), e); err != nil {
			t.Fatalf("ingest %+v: %v", e, err)
		}
	}
}
