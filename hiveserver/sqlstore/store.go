package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/reports"
)

// Store is a hiveserver.Store in SQL: SQLite or MySQL/MariaDB. It is safe
// for concurrent use; its zero value is not usable. Open it with Open, and
// Close it once the Pickers that use it have stopped. It starts no
// goroutine of its own (database/sql keeps the connections).
type Store struct {
	db   *sql.DB
	d    *dialect
	desc string // what the store is, for errors; never a password

	lookup *sql.Stmt // prepared once
}

// Open opens the store dsn names, creating or migrating its schema:
// "sqlite:PATH" (a file, created when missing, in WAL mode with
// synchronous=FULL) or "mysql:DSN" (a go-sql-driver DSN such as
// "user:pass@tcp(host:3306)/slowpeer"; the database must exist).
func Open(ctx context.Context, dsn string) (*Store, error) {
	kind, rest, _ := strings.Cut(dsn, ":")
	var s *Store
	var err error
	switch kind {
	case "sqlite":
		s, err = openSQLite(rest)
	case "mysql":
		s, err = openMySQL(rest)
	default:
		return nil, fmt.Errorf("open store: %q is not sqlite:PATH or mysql:DSN", reports.Clip(dsn))
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

// Close closes the store's connections. Stop the Pickers first.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.desc, err)
	}
	return nil
}

// Lookup returns the row of a statement, and false when there is none.
func (s *Store) Lookup(ctx context.Context, server, queryID string) (hiveserver.Query, bool, error) {
	q := hiveserver.Query{Server: server, QueryID: queryID}
	var hook string
	var pre, post sql.NullInt64
	err := s.lookup.QueryRowContext(ctx, server, queryID).Scan(&hook, &q.QueryStr, &q.JobName, &pre, &post)
	if errors.Is(err, sql.ErrNoRows) {
		return hiveserver.Query{}, false, nil
	}
	if err != nil {
		return hiveserver.Query{}, false, fmt.Errorf("look up %s %s in %s: %w", server, reports.Clip(queryID), s.desc, err)
	}
	q.Hook, q.PreTimeMs, q.PostTimeMs = hiveserver.Hook(hook), pre.Int64, post.Int64
	return q, true, nil
}

// nullMs is a time column's value: NULL for 0.
func nullMs(ms int64) sql.NullInt64 { return sql.NullInt64{Int64: ms, Valid: ms != 0} }
