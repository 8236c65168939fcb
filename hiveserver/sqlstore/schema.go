package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// SchemaError is the error of a store whose schema is not the version
// this package knows. An older schema (or none) is one the leader has yet
// to migrate: the error is hiveserver.ErrStoreNotReady (errors.Is), and
// waiting helps. A newer one was migrated by a newer slowpeer: waiting
// does not help, a newer binary does.
type SchemaError struct {
	// Store is the store, as String gives it.
	Store string
	// Have is the schema version stored, 0 when there is none; Want is
	// the version this package knows.
	Have, Want int
}

// Error names the store and both versions.
func (e *SchemaError) Error() string {
	if e.TooNew() {
		return fmt.Sprintf("store %s: schema version %d is newer than this slowpeer knows (%d): run a newer slowpeer", e.Store, e.Have, e.Want)
	}
	return fmt.Sprintf("store %s: schema not ready: version %d, want %d (the leader migrates it)", e.Store, e.Have, e.Want)
}

// TooNew reports whether the stored schema is newer than this package
// knows.
func (e *SchemaError) TooNew() bool { return e.Have > e.Want }

// Is makes an older schema hiveserver.ErrStoreNotReady.
func (e *SchemaError) Is(target error) bool {
	return target == hiveserver.ErrStoreNotReady && e.Have < e.Want
}

// SchemaVersion returns the store's schema version (0 when no table is
// there yet) and the version this package knows, reading no more than
// slowpeer_schema and the catalog: it creates nothing.
func (s *Store) SchemaVersion(ctx context.Context) (have, want int, err error) {
	want = len(s.d.migrations)
	var tables int
	if err := s.db.QueryRowContext(ctx, s.d.versionTableExists).Scan(&tables); err != nil {
		return 0, want, fmt.Errorf("read schema version of %s: %w", s.desc, err)
	}
	if tables == 0 {
		return 0, want, nil
	}
	err = s.db.QueryRowContext(ctx, readVersion, schemaComponent).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, want, nil
	}
	if err != nil {
		return 0, want, fmt.Errorf("read schema version of %s: %w", s.desc, err)
	}
	return have, want, nil
}

// CheckSchema returns nil once the store's schema is the version this
// package knows, and prepares the store's statements the first time;
// another version is a *SchemaError. Once it has returned nil it does no
// more I/O.
func (s *Store) CheckSchema(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	if s.ready.Load() {
		return nil
	}
	have, want, err := s.SchemaVersion(ctx)
	switch {
	case err != nil:
		return err
	case have != want:
		return &SchemaError{Store: s.desc, Have: have, Want: want}
	}
	st, err := s.db.PrepareContext(ctx, lookupQuery)
	if err != nil {
		return fmt.Errorf("store %s: prepare: %w", s.desc, err)
	}
	s.lookup = st
	s.ready.Store(true)
	return nil
}
