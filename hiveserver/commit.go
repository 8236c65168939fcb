package hiveserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// change is what one event did to its statement's row, for the Picker's
// memory: the row before (existed false: none) and after, neither with its
// QueryStr, and the timestamp of the event.
type change struct {
	before  Query
	existed bool
	after   Query
	eventMs int64
}

// commitError is an error of commit; uncertain is true when the COMMIT
// itself failed, so the events may or may not be stored.
type commitError struct {
	err       error
	uncertain bool
}

func (e *commitError) Error() string { return e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// maxAttempts bounds the retries of a transaction that lost a race with
// another service replica on MySQL (deadlock, lock wait, duplicate key).
const maxAttempts = 5

// commit stores events in one transaction, in order, and returns the
// changes they made (an event that changes nothing makes none). Either all
// of them are stored or, on error, none is (unless the error is uncertain).
func (s *Store) commit(ctx context.Context, events []Event) ([]change, error) {
	for attempt := 1; ; attempt++ {
		changes, err := s.commitOnce(ctx, events)
		if err == nil {
			return changes, nil
		}
		var ce *commitError
		if attempt == maxAttempts || errors.As(err, &ce) && ce.uncertain || !lostRace(err) {
			return nil, fmt.Errorf("store %d events in %s: %w", len(events), s.desc, err)
		}
	}
}

// lostRace reports whether err is MySQL telling one of two concurrent
// writers of a row to try again.
func lostRace(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1213, 1205, 1062: // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_DUP_ENTRY
		return true
	}
	return false
}

// nonEmpty stands in a row read by commit for a queryStr that is stored
// and not empty: merge only asks whether it is empty, and the upsert keeps
// the stored text.
const nonEmpty = "\x00stored"

// Statement size limits of commit: rows per multi-row statement, and text
// bytes per upsert (well under MySQL's default max_allowed_packet).
const (
	rowsPerStatement  = 256
	bytesPerStatement = 1 << 20
)

// rowKey identifies a statement's row.
type rowKey struct{ server, queryID string }

// commitOnce writes events in one transaction with a handful of
// statements whatever their number: one read of all their rows (locked on
// MySQL), the merge in memory, one multi-row upsert of the rows that
// changed, one of the job histories and one of the servers.
func (s *Store) commitOnce(ctx context.Context, events []Event) (_ []change, err error) {
	tx, err := s.db.BeginTx(ctx, s.d.txOptions)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()

	var keys []rowKey
	rows := map[rowKey]*Query{}
	for _, e := range events {
		k := rowKey{e.Server, e.QueryID}
		if _, ok := rows[k]; !ok {
			rows[k] = nil
			keys = append(keys, k)
		}
	}
	if err := s.readRows(ctx, tx, keys, rows); err != nil {
		return nil, err
	}
	stored := map[rowKey]bool{}
	for k, q := range rows {
		stored[k] = q != nil
	}

	changes := make([]change, 0, len(events))
	jobs := map[string]jobTotals{}
	servers := map[string]int64{}
	var dirty []rowKey // in first-change order
	isDirty := map[rowKey]bool{}
	for _, e := range events {
		k := rowKey{e.Server, e.QueryID}
		cur := rows[k]
		var before Query
		if cur != nil {
			before = *cur
		}
		after, changed := merge(before, cur != nil, e)
		if !changed {
			continue
		}
		if job, ms, ok := before.history(); ok {
			t := jobs[job]
			jobs[job] = jobTotals{t.finished - 1, t.totalMs - ms}
		}
		if job, ms, ok := after.history(); ok {
			t := jobs[job]
			jobs[job] = jobTotals{t.finished + 1, t.totalMs + ms}
		}
		servers[e.Server] = max(servers[e.Server], e.TimeMs)
		if !isDirty[k] {
			isDirty[k] = true
			dirty = append(dirty, k)
		}
		rows[k] = &after
		b, a := before, after
		b.QueryStr, a.QueryStr = "", ""
		changes = append(changes, change{before: b, existed: cur != nil, after: a, eventMs: e.TimeMs})
	}

	if err := s.writeRows(ctx, tx, dirty, rows, stored); err != nil {
		return nil, err
	}
	if err := s.writeTotals(ctx, tx, jobs, servers); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, &commitError{err: fmt.Errorf("commit: %w", err), uncertain: true}
	}
	return changes, nil
}

// readRows reads the rows of keys into rows (a key without a row stays
// nil), rowsPerStatement keys a statement. On MySQL it locks them (or
// their absence) until the commit.
func (s *Store) readRows(ctx context.Context, tx *sql.Tx, keys []rowKey, rows map[rowKey]*Query) error {
	for len(keys) > 0 {
		n := min(len(keys), rowsPerStatement)
		var b strings.Builder
		args := make([]any, 0, 2*n)
		b.WriteString(`SELECT server, queryId, hook, LENGTH(queryStr) = 0, jobName, preTime, postTime FROM hive_queries WHERE `)
		for i, k := range keys[:n] {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString("(server = ? AND queryId = ?)")
			args = append(args, k.server, k.queryID)
		}
		b.WriteString(s.d.lockRows)
		if err := scanRows(ctx, tx, b.String(), args, func(r *sql.Rows) error {
			var q Query
			var hook string
			var empty int64
			var pre, post sql.NullInt64
			if err := r.Scan(&q.Server, &q.QueryID, &hook, &empty, &q.JobName, &pre, &post); err != nil {
				return err
			}
			q.Hook, q.PreTimeMs, q.PostTimeMs = Hook(hook), pre.Int64, post.Int64
			if empty == 0 {
				q.QueryStr = nonEmpty
			}
			rows[rowKey{q.Server, q.QueryID}] = &q
			return nil
		}); err != nil {
			return fmt.Errorf("read %d rows: %w", n, err)
		}
		keys = keys[n:]
	}
	return nil
}

// writeRows writes the rows of keys with their merged state: those stored
// before the batch with an upsert (they are locked: the state merged is
// theirs), the new ones with a plain INSERT, so that a service replica
// that inserted one meanwhile makes this transaction fail with a
// duplicate key and be tried again on the row as it is. A stored
// non-empty queryStr is never rewritten.
func (s *Store) writeRows(ctx context.Context, tx *sql.Tx, keys []rowKey, rows map[rowKey]*Query, stored map[rowKey]bool) error {
	var inserts, updates []rowKey
	for _, k := range keys {
		if stored[k] {
			updates = append(updates, k)
		} else {
			inserts = append(inserts, k)
		}
	}
	for _, w := range []struct {
		keys []rowKey
		tail string
	}{{inserts, ""}, {updates, s.d.upsertQueries}} {
		for keys := w.keys; len(keys) > 0; {
			n, err := s.writeSome(ctx, tx, keys, rows, w.tail)
			if err != nil {
				return err
			}
			keys = keys[n:]
		}
	}
	return nil
}

// writeSome writes the first rows of keys in one INSERT ending with tail,
// at most rowsPerStatement rows and bytesPerStatement of text (at least
// one row), and returns how many.
func (s *Store) writeSome(ctx context.Context, tx *sql.Tx, keys []rowKey, rows map[rowKey]*Query, tail string) (int, error) {
	var b strings.Builder
	b.WriteString(`INSERT INTO hive_queries (server, queryId, hook, queryStr, jobName, preTime, postTime) VALUES `)
	var args []any
	n, textBytes := 0, 0
	for _, k := range keys {
		q := rows[k]
		text := q.QueryStr
		if text == nonEmpty {
			text = ""
		}
		if n > 0 && (n == rowsPerStatement || textBytes+len(text) > bytesPerStatement) {
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?)")
		args = append(args, q.Server, q.QueryID, string(q.Hook), text, q.JobName, nullMs(q.PreTimeMs), nullMs(q.PostTimeMs))
		n++
		textBytes += len(text)
	}
	b.WriteString(tail)
	if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
		return 0, fmt.Errorf("write %d rows: %w", n, err)
	}
	return n, nil
}

// writeTotals adds the batch's history deltas to hive_jobs and raises the
// servers' lastEventTime, in sorted order so that concurrent service
// replicas lock rows alike.
func (s *Store) writeTotals(ctx context.Context, tx *sql.Tx, jobs map[string]jobTotals, servers map[string]int64) error {
	var b strings.Builder
	var args []any
	flush := func(head, tail, what string) error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, head+b.String()+tail, args...)
		b.Reset()
		args = args[:0]
		if err != nil {
			return fmt.Errorf("write %s: %w", what, err)
		}
		return nil
	}
	const jobsHead = `INSERT INTO hive_jobs (jobName, finished, totalMs) VALUES `
	for _, job := range slices.Sorted(maps.Keys(jobs)) {
		t := jobs[job]
		if t == (jobTotals{}) {
			continue
		}
		if len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?)")
		args = append(args, job, t.finished, t.totalMs)
		if len(args) == 3*rowsPerStatement {
			if err := flush(jobsHead, s.d.upsertJobs, "job history"); err != nil {
				return err
			}
		}
	}
	if err := flush(jobsHead, s.d.upsertJobs, "job history"); err != nil {
		return err
	}
	const serversHead = `INSERT INTO hive_servers (server, lastEventTime) VALUES `
	for _, server := range slices.Sorted(maps.Keys(servers)) {
		if len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?)")
		args = append(args, server, servers[server])
		if len(args) == 2*rowsPerStatement {
			if err := flush(serversHead, s.d.upsertServers, "servers"); err != nil {
				return err
			}
		}
	}
	return flush(serversHead, s.d.upsertServers, "servers")
}
