package hiveserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"

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

// nonEmpty stands in a before row for a queryStr that is stored and not
// empty: merge only asks whether it is empty, and the UPDATE keeps it.
const nonEmpty = "\x00stored"

func (s *Store) commitOnce(ctx context.Context, events []Event) (_ []change, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	sel, ins, upd := tx.StmtContext(ctx, s.selectRow), tx.StmtContext(ctx, s.insert), tx.StmtContext(ctx, s.update)

	changes := make([]change, 0, len(events))
	type totals struct{ finished, totalMs int64 }
	jobs := map[string]totals{}
	servers := map[string]int64{}
	for _, e := range events {
		before := Query{Server: e.Server, QueryID: e.QueryID}
		var hook string
		var empty int64
		var pre, post sql.NullInt64
		err := sel.QueryRowContext(ctx, e.Server, e.QueryID).Scan(&hook, &empty, &before.JobName, &pre, &post)
		existed := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read %s %s: %w", e.Server, clip(e.QueryID), err)
		}
		if existed {
			before.Hook, before.PreTimeMs, before.PostTimeMs = Hook(hook), pre.Int64, post.Int64
			if empty == 0 {
				before.QueryStr = nonEmpty
			}
		}
		after, changed := merge(before, existed, e)
		if !changed {
			continue
		}
		if existed {
			_, err = upd.ExecContext(ctx, string(after.Hook), after.JobName, nullMs(after.PreTimeMs), nullMs(after.PostTimeMs),
				e.QueryStr, e.Server, e.QueryID)
		} else {
			_, err = ins.ExecContext(ctx, e.Server, e.QueryID, string(after.Hook), e.QueryStr, after.JobName,
				nullMs(after.PreTimeMs), nullMs(after.PostTimeMs))
		}
		if err != nil {
			return nil, fmt.Errorf("write %s %s: %w", e.Server, clip(e.QueryID), err)
		}
		if job, ms, ok := before.history(); ok {
			t := jobs[job]
			jobs[job] = totals{t.finished - 1, t.totalMs - ms}
		}
		if job, ms, ok := after.history(); ok {
			t := jobs[job]
			jobs[job] = totals{t.finished + 1, t.totalMs + ms}
		}
		servers[e.Server] = max(servers[e.Server], e.TimeMs)
		before.QueryStr, after.QueryStr = "", ""
		changes = append(changes, change{before: before, existed: existed, after: after, eventMs: e.TimeMs})
	}

	// In sorted order, so that concurrent replicas lock rows alike.
	upJob := tx.StmtContext(ctx, s.upsertJob)
	for _, job := range slices.Sorted(maps.Keys(jobs)) {
		t := jobs[job]
		if t == (totals{}) {
			continue
		}
		if _, err := upJob.ExecContext(ctx, job, t.finished, t.totalMs); err != nil {
			return nil, fmt.Errorf("add to history of job %s: %w", clip(job), err)
		}
	}
	upServer := tx.StmtContext(ctx, s.upsertServer)
	for _, server := range slices.Sorted(maps.Keys(servers)) {
		if _, err := upServer.ExecContext(ctx, server, servers[server]); err != nil {
			return nil, fmt.Errorf("record server %s: %w", server, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, &commitError{err: fmt.Errorf("commit: %w", err), uncertain: true}
	}
	return changes, nil
}

// snapshot is what the Picker loads from the store: the open statements
// (Server, QueryID, JobName, PreTimeMs), the job histories and the
// servers' last events.
type snapshot struct {
	open    []Query
	jobs    map[string]jobTotals
	servers map[string]int64
}

// jobTotals is the history of one jobName: how many of its statements
// finished and their total duration.
type jobTotals struct {
	finished int64
	totalMs  int64
}

// load reads a snapshot in one read-only transaction, so its three parts
// agree with each other.
func (s *Store) load(ctx context.Context) (_ snapshot, err error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return snapshot{}, fmt.Errorf("load %s: begin: %w", s.desc, err)
	}
	defer tx.Rollback()
	snap := snapshot{jobs: map[string]jobTotals{}, servers: map[string]int64{}}
	err = scanAll(ctx, tx, openQueries, func(r *sql.Rows) error {
		var q Query
		if err := r.Scan(&q.Server, &q.QueryID, &q.JobName, &q.PreTimeMs); err != nil {
			return err
		}
		q.Hook = PreExec
		snap.open = append(snap.open, q)
		return nil
	})
	if err == nil {
		err = scanAll(ctx, tx, loadJobs, func(r *sql.Rows) error {
			var job string
			var t jobTotals
			if err := r.Scan(&job, &t.finished, &t.totalMs); err != nil {
				return err
			}
			snap.jobs[job] = t
			return nil
		})
	}
	if err == nil {
		err = scanAll(ctx, tx, loadServers, func(r *sql.Rows) error {
			var server string
			var ms int64
			if err := r.Scan(&server, &ms); err != nil {
				return err
			}
			snap.servers[server] = ms
			return nil
		})
	}
	if err != nil {
		return snapshot{}, fmt.Errorf("load %s: %w", s.desc, err)
	}
	return snap, nil
}

func scanAll(ctx context.Context, tx *sql.Tx, query string, row func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
