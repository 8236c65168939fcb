package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// forEachStore runs test on every store kind: SQLite always, MySQL when
// testenv has one. dsn names a new, empty store.
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
	base := testenv.Env(t, testenv.MySQLDSNEnv)
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("%s: %v", testenv.MySQLDSNEnv, err)
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
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openPicker returns a Picker on s with cfg (zero durations get their
// defaults), loaded and running, and the function that stops it; it
// stops at the end of the test too.
func openPicker(t testing.TB, s *Store, cfg hiveserver.Config) (p *hiveserver.Picker, stop func()) {
	t.Helper()
	def := hiveserver.DefaultConfig()
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
	p, err := hiveserver.New(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop) // before the store closes: cleanups run last first
	return p, stop
}

func countRows(t testing.TB, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM hive_queries`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// t0 is the synthetic start of time of the tests.
var t0 = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus d, in milliseconds since the epoch.
func at(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

// ev is an event with a made-up statement text.
func ev(server string, hook hiveserver.Hook, id, job string, timeMs int64) hiveserver.Event {
	return hiveserver.Event{Server: server, Hook: hook, QueryID: id, QueryStr: "SELECT '" + id + "'", JobName: job, TimeMs: timeMs}
}

func ingest(t testing.TB, p *hiveserver.Picker, events ...hiveserver.Event) {
	t.Helper()
	for _, e := range events {
		if err := p.Ingest(context.Background(), e); err != nil {
			t.Fatalf("ingest %+v: %v", e, err)
		}
	}
}

// hookCase is one line of ../testdata/hook_bodies.jsonl: a statement and
// the exact body a Java hook sends for it.
type hookCase struct {
	Hook     hiveserver.Hook `json:"hook"`
	QueryID  string          `json:"queryId"`
	JobName  string          `json:"jobName"`
	QueryStr string          `json:"queryStr"`
	Body     string          `json:"body"`
}

func readHookCases(t testing.TB) []hookCase {
	t.Helper()
	f, err := os.Open("../testdata/hook_bodies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []hookCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c hookCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("hook_bodies.jsonl: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil || len(cases) < 5 {
		t.Fatalf("hook_bodies.jsonl: %v, %d cases", err, len(cases))
	}
	return cases
}
