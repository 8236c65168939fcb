package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/reports"
)

// Store is a hiveserver.Store in SQL: SQLite or MySQL/MariaDB. It is safe
// for concurrent use; its zero value is not usable. Open it with Open (or
// Connect, and let the leader Migrate), and Close it once the Pickers that
// use it have stopped. It starts no goroutine of its own (database/sql
// keeps the connections).
type Store struct {
	db   *sql.DB
	d    *dialect
	desc string // what the store is, for errors; never a password

	// readyMu serializes the schema checks until one finds the schema
	// current; ready is set after lookup, so a reader that sees it true
	// sees lookup.
	readyMu sync.Mutex
	ready   atomic.Bool
	lookup  *sql.Stmt // prepared once the schema is current
	// checked is when the schema version was last read and found
	// current (Unix nanoseconds); recheck how old that may be
	// (SchemaRecheck).
	checked atomic.Int64
	recheck time.Duration
}

// Open opens the store dsn names and migrates its schema, as a lone
// service does (it is its own leader): "sqlite:PATH" (a file, created
// when missing, in WAL mode with synchronous=FULL) or "mysql:DSN" (a
// go-sql-driver DSN such as "user:pass@tcp(host:3306)/slowpeer"; the
// database must exist).
func Open(ctx context.Context, dsn string) (*Store, error) {
	s, err := Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Connect opens the store dsn names (as Open does) without creating or
// altering any table: the schema is the leader's to migrate. Until it is
// current, Snapshot, Commit, Lookup and Prune fail with an error that
// wraps hiveserver.ErrStoreNotReady (CheckSchema says why).
func Connect(ctx context.Context, dsn string) (*Store, error) {
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
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store %s: connect: %w", s.desc, err)
	}
	return s, nil
}

// Migrate creates the tables or brings them to the version this package
// knows, and prepares the store for use. It refuses a schema newer than
// that (a *SchemaError). Several processes may call it at once: one
// migrates, the others find the work done.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		if _, ok := errors.AsType[*SchemaError](err); ok {
			return err
		}
		return fmt.Errorf("open store %s: migrate schema: %w", s.desc, err)
	}
	return s.CheckSchema(ctx)
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
	if err := s.CheckSchema(ctx); err != nil {
		return hiveserver.Query{}, false, err
	}
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
