package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

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

// Is makes an older schema hiveserver.ErrStoreNotReady and a newer one
// hiveserver.ErrStoreTooNew.
func (e *SchemaError) Is(target error) bool {
	return target == hiveserver.ErrStoreNotReady && e.Have < e.Want ||
		target == hiveserver.ErrStoreTooNew && e.Have > e.Want
}

// SchemaRecheck is how old a check of the schema version may be before a
// read or a write of the store checks it again: during a rolling upgrade
// the leader, a newer binary, migrates the schema under replicas that
// still run the older one, which then stop writing within this time.
const SchemaRecheck = time.Second

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

// CheckSchema returns nil while the store's schema is the version this
// package knows, and prepares the store's statements the first time;
// another version is a *SchemaError. It reads the version again once the
// last reading is SchemaRecheck old (Store.recheck), not at every call.
func (s *Store) CheckSchema(ctx context.Context) error {
	if s.ready.Load() && time.Since(time.Unix(0, s.checked.Load())) < s.recheck {
		return nil
	}
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	if s.ready.Load() && time.Since(time.Unix(0, s.checked.Load())) < s.recheck {
		return nil
	}
	read := time.Now()
	have, want, err := s.SchemaVersion(ctx)
	switch {
	case err != nil:
		return err
	case have != want:
		if s.ready.Swap(false) {
			s.checked.Store(0)
		}
		return &SchemaError{Store: s.desc, Have: have, Want: want}
	}
	if s.lookup == nil {
		st, err := s.db.PrepareContext(ctx, lookupQuery)
		if err != nil {
			return fmt.Errorf("store %s: prepare: %w", s.desc, err)
		}
		s.lookup = st
	}
	s.checked.Store(read.UnixNano())
	s.ready.Store(true)
	return nil
}
