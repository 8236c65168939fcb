package hiveserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store keeps hook events in SQL, one row per statement: SQLite (embedded)
// or MySQL/MariaDB (shared by several service replicas). It is safe for
// concurrent use; a Picker does all its writing. Open it with OpenStore.
type Store struct {
	db   *sql.DB
	d    *dialect
	desc string // what the store is, for errors; never a password

	lookup *sql.Stmt // prepared once
}

// OpenStore opens the store dsn names, creating or migrating its schema:
// "sqlite:PATH" (a file, created when missing, in WAL mode with
// synchronous=FULL) or "mysql:DSN" (a go-sql-driver DSN such as
// "user:pass@tcp(host:3306)/slowpeer"; the database must exist).
func OpenStore(ctx context.Context, dsn string) (*Store, error) {
	kind, rest, _ := strings.Cut(dsn, ":")
	var s *Store
	var err error
	switch kind {
	case "sqlite":
		s, err = openSQLite(rest)
	case "mysql":
		s, err = openMySQL(rest)
	default:
		return nil, fmt.Errorf("open store: %q is not sqlite:PATH or mysql:DSN", clip(dsn))
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := s.start(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: %w", s.desc, err)
	}
	return s, nil
}

// sqlitePragmas make every connection wait for a lock rather than fail,
// use the write-ahead log, fsync the log at every commit (synchronous=FULL:
// a committed event survives a power cut, not only a killed process) and
// start writing transactions with BEGIN IMMEDIATE.
const sqlitePragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"

func openSQLite(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite path %q: ? and # are not allowed in the path", path)
	}
	db, err := sql.Open("sqlite", path+sqlitePragmas)
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	// One writer (the Picker's committer) and a few readers.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	return &Store{db: db, d: sqliteDialect, desc: "sqlite:" + path}, nil
}

func openMySQL(dsn string) (*Store, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("mysql DSN names no database (user:pass@tcp(host:3306)/DATABASE)")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if _, ok := cfg.Params["sql_mode"]; !ok {
		// Strict: a value that does not fit is an error, never cut.
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["sql_mode"] = "'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'"
	}
	// A batch's statements differ in length, so they are not prepared:
	// the driver interpolates their arguments, escaping them for utf8mb4,
	// and each costs one round trip.
	cfg.InterpolateParams = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql DSN: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxLifetime(5 * time.Minute)
	return &Store{db: db, d: mysqlDialect, desc: fmt.Sprintf("mysql:%s/%s", cfg.Addr, cfg.DBName)}, nil
}

// start migrates the schema and prepares the statements.
func (s *Store) start(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	st, err := s.db.PrepareContext(ctx, lookupQuery)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	s.lookup = st
	return nil
}

// String returns the store's kind and place, without credentials.
func (s *Store) String() string { return s.desc }

// Close closes the store's connections. Close the Picker first.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.desc, err)
	}
	return nil
}

// Lookup returns the row of a statement, and false when there is none.
func (s *Store) Lookup(ctx context.Context, server, queryID string) (Query, bool, error) {
	q := Query{Server: server, QueryID: queryID}
	var hook string
	var pre, post sql.NullInt64
	err := s.lookup.QueryRowContext(ctx, server, queryID).Scan(&hook, &q.QueryStr, &q.JobName, &pre, &post)
	if errors.Is(err, sql.ErrNoRows) {
		return Query{}, false, nil
	}
	if err != nil {
		return Query{}, false, fmt.Errorf("look up %s %s in %s: %w", server, clip(queryID), s.desc, err)
	}
	q.Hook, q.PreTimeMs, q.PostTimeMs = Hook(hook), pre.Int64, post.Int64
	return q, true, nil
}

// nullMs is a time column's value: NULL for 0.
func nullMs(ms int64) sql.NullInt64 { return sql.NullInt64{Int64: ms, Valid: ms != 0} }
