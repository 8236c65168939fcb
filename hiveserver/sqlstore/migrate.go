package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrate brings the schema to len(s.d.migrations), recording the version
// in slowpeer_schema. On SQLite it runs in one transaction (SQLite's DDL is
// transactional, and BEGIN IMMEDIATE keeps a second process out); on MySQL,
// whose DDL commits itself, a named lock keeps service replicas that start
// together from migrating twice.
func (s *Store) migrate(ctx context.Context) (err error) {
	if have, want, err := s.SchemaVersion(ctx); err == nil && have == want {
		return nil // nothing to do: take no lock, write nothing
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	type execQuerier interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	var x execQuerier = conn
	if s.d == mysqlDialect {
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, `SELECT GET_LOCK('slowpeer_schema', 60)`).Scan(&got); err != nil {
			return fmt.Errorf("take schema lock: %w", err)
		}
		if got.Int64 != 1 {
			return errors.New("take schema lock: another replica held it for 60s")
		}
		defer func() {
			if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `DO RELEASE_LOCK('slowpeer_schema')`); rerr != nil && err == nil {
				err = fmt.Errorf("release schema lock: %w", rerr)
			}
		}()
	} else {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() {
			if err != nil {
				tx.Rollback()
				return
			}
			err = tx.Commit()
		}()
		x = tx
	}

	if _, err := x.ExecContext(ctx, s.d.createVersionTable); err != nil {
		return fmt.Errorf("create slowpeer_schema: %w", err)
	}
	if _, err := x.ExecContext(ctx, s.d.seedVersion, schemaComponent); err != nil {
		return fmt.Errorf("seed slowpeer_schema: %w", err)
	}
	var version int
	if err := x.QueryRowContext(ctx, readVersion, schemaComponent).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	latest := len(s.d.migrations)
	if version > latest {
		return &SchemaError{Store: s.desc, Have: version, Want: latest}
	}
	for v := version; v < latest; v++ {
		for _, stmt := range s.d.migrations[v] {
			if _, err := x.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("schema version %d to %d: %w", v, v+1, err)
			}
		}
		if _, err := x.ExecContext(ctx, writeVersion, v+1, schemaComponent); err != nil {
			return fmt.Errorf("record schema version %d: %w", v+1, err)
		}
	}
	return nil
}
