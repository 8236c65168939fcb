package hiveserver

import (
	"context"
	"database/sql"
	"fmt"
)

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
	err = scanRows(ctx, tx, openQueries, nil, func(r *sql.Rows) error {
		var q Query
		if err := r.Scan(&q.Server, &q.QueryID, &q.JobName, &q.PreTimeMs); err != nil {
			return err
		}
		q.Hook = PreExec
		snap.open = append(snap.open, q)
		return nil
	})
	if err == nil {
		err = scanRows(ctx, tx, loadJobs, nil, func(r *sql.Rows) error {
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
		err = scanRows(ctx, tx, loadServers, nil, func(r *sql.Rows) error {
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

func scanRows(ctx context.Context, tx *sql.Tx, query string, args []any, row func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
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
