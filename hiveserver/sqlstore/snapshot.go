package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// Snapshot reads the snapshot the workload is built from in one read-only
// transaction, so that its three parts agree with each other.
func (s *Store) Snapshot(ctx context.Context) (_ hiveserver.Snapshot, err error) {
	if err := s.CheckSchema(ctx); err != nil {
		return hiveserver.Snapshot{}, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return hiveserver.Snapshot{}, fmt.Errorf("read snapshot of %s: begin: %w", s.desc, err)
	}
	defer tx.Rollback()
	snap := hiveserver.Snapshot{Jobs: map[string]hiveserver.JobTotals{}, Servers: map[string]int64{}}
	err = scanRows(ctx, tx, openQueries, nil, func(r *sql.Rows) error {
		q := hiveserver.Query{Hook: hiveserver.PreExec}
		if err := r.Scan(&q.Server, &q.QueryID, &q.JobName, &q.PreTimeMs); err != nil {
			return err
		}
		snap.Open = append(snap.Open, q)
		return nil
	})
	if err == nil {
		err = scanRows(ctx, tx, loadJobs, nil, func(r *sql.Rows) error {
			var job string
			var t hiveserver.JobTotals
			if err := r.Scan(&job, &t.Finished, &t.TotalMs); err != nil {
				return err
			}
			snap.Jobs[job] = t
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
			snap.Servers[server] = ms
			return nil
		})
	}
	if err != nil {
		return hiveserver.Snapshot{}, fmt.Errorf("read snapshot of %s: %w", s.desc, err)
	}
	return snap, nil
}

// scanRows runs query in tx and calls row for each row of the answer.
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
