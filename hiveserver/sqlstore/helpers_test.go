package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

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

func countRows(t testing.TB, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM hive_queries`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// formType is the Content-Type of a hook's body.
const formType = "application/x-www-form-urlencoded"
