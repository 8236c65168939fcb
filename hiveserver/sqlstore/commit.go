package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// maxAttempts bounds the retries of a transaction that lost a race with
// another service replica on MySQL (deadlock, lock wait, duplicate key).
const maxAttempts = 5

// Commit stores events in one transaction, in order, and returns the
// changes they made (an event that changes nothing makes none). Either
// all of them are stored or, on error, none is, unless the error wraps
// hiveserver.ErrCommitUncertain (the COMMIT itself failed). A transaction
// that lost a race with another service replica is tried again.
func (s *Store) Commit(ctx context.Context, events []hiveserver.Event) ([]hiveserver.Change, error) {
	if err := s.CheckSchema(ctx); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		changes, err := s.commitOnce(ctx, events)
		if err == nil {
			return changes, nil
		}
		if attempt == maxAttempts || errors.Is(err, hiveserver.ErrCommitUncertain) || !lostRace(err) {
			return nil, fmt.Errorf("store %d events in %s: %w", len(events), s.desc, err)
		}
	}
}

// nonEmpty stands in a row read by commitOnce for a queryStr that is
// stored and not empty: MergeBatch only asks whether it is empty, and the
// upsert keeps the stored text.
const nonEmpty = "\x00stored"

// Statement size limits of a commit: rows per multi-row statement, and
// text bytes per upsert (well under MySQL's default max_allowed_packet).
const (
	rowsPerStatement  = 256
	bytesPerStatement = 1 << 20
)

// commitOnce writes events in one transaction with a handful of
// statements whatever their number: one read of all their rows (locked on
// MySQL), the merge in memory, one multi-row upsert of the rows that
// changed, one of the job histories and one of the servers.
func (s *Store) commitOnce(ctx context.Context, events []hiveserver.Event) (_ []hiveserver.Change, err error) {
	tx, err := s.db.BeginTx(ctx, s.d.txOptions)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()

	keys := make([]hiveserver.QueryKey, 0, len(events))
	seen := make(map[hiveserver.QueryKey]bool, len(events))
	for _, e := range events {
		k := hiveserver.QueryKey{Server: e.Server, QueryID: e.QueryID}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	stored := make(map[hiveserver.QueryKey]hiveserver.Query, len(keys))
	if err := s.readRows(ctx, tx, keys, stored); err != nil {
		return nil, err
	}
	b := hiveserver.MergeBatch(stored, events)
	if err := s.writeRows(ctx, tx, b.Rows, stored); err != nil {
		return nil, err
	}
	if err := s.writeTotals(ctx, tx, b.Jobs, b.Servers); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w: %w", hiveserver.ErrCommitUncertain, err)
	}
	return b.Changes, nil
}

// readRows reads the rows of keys into rows (a key without a row gets no
// entry), rowsPerStatement keys a statement; a stored non-empty queryStr
// reads as nonEmpty. On MySQL it locks the rows (or their absence) until
// the commit.
func (s *Store) readRows(ctx context.Context, tx *sql.Tx, keys []hiveserver.QueryKey, rows map[hiveserver.QueryKey]hiveserver.Query) error {
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
			args = append(args, k.Server, k.QueryID)
		}
		b.WriteString(s.d.lockRows)
		if err := scanRows(ctx, tx, b.String(), args, func(r *sql.Rows) error {
			var q hiveserver.Query
			var hook string
			var empty int64
			var pre, post sql.NullInt64
			if err := r.Scan(&q.Server, &q.QueryID, &hook, &empty, &q.JobName, &pre, &post); err != nil {
				return err
			}
			q.Hook, q.PreTimeMs, q.PostTimeMs = hiveserver.Hook(hook), pre.Int64, post.Int64
			if empty == 0 {
				q.QueryStr = nonEmpty
			}
			rows[q.Key()] = q
			return nil
		}); err != nil {
			return fmt.Errorf("read %d rows: %w", n, err)
		}
		keys = keys[n:]
	}
	return nil
}

// writeRows writes the merged rows: those stored before the batch with an
// upsert (they are locked: the state merged is theirs), the new ones with
// a plain INSERT, so that a service replica that inserted one meanwhile
// makes this transaction fail with a duplicate key and be tried again on
// the row as it is. A stored non-empty queryStr is never rewritten.
func (s *Store) writeRows(ctx context.Context, tx *sql.Tx, rows []hiveserver.Query, stored map[hiveserver.QueryKey]hiveserver.Query) error {
	var inserts, updates []hiveserver.Query
	for _, q := range rows {
		if _, ok := stored[q.Key()]; ok {
			updates = append(updates, q)
		} else {
			inserts = append(inserts, q)
		}
	}
	for _, w := range []struct {
		rows []hiveserver.Query
		tail string
	}{{inserts, ""}, {updates, s.d.upsertQueries}} {
		for rows := w.rows; len(rows) > 0; {
			n, err := s.writeSome(ctx, tx, rows, w.tail)
			if err != nil {
				return err
			}
			rows = rows[n:]
		}
	}
	return nil
}

// writeSome writes the first of rows in one INSERT ending with tail, at
// most rowsPerStatement rows and bytesPerStatement of text (at least one
// row), and returns how many.
func (s *Store) writeSome(ctx context.Context, tx *sql.Tx, rows []hiveserver.Query, tail string) (int, error) {
	var b strings.Builder
	b.WriteString(`INSERT INTO hive_queries (server, queryId, hook, queryStr, jobName, preTime, postTime) VALUES `)
	var args []any
	n, textBytes := 0, 0
	for _, q := range rows {
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
func (s *Store) writeTotals(ctx context.Context, tx *sql.Tx, jobs map[string]hiveserver.JobTotals, servers map[string]int64) error {
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
		if t == (hiveserver.JobTotals{}) {
			continue
		}
		if len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?)")
		args = append(args, job, t.Finished, t.TotalMs)
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
