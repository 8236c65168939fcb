package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// pruneQueries deletes the statements whose last event (their end, else
// their start) is older than the cut; pruneServers the HiveServers whose
// last event is. The job totals stay: they are the history the load
// estimate leans on, one row per job.
const (
	pruneQueries = `DELETE FROM hive_queries WHERE COALESCE(postTime, preTime, 0) < ?`
	pruneServers = `DELETE FROM hive_servers WHERE lastEventTime < ?`
)

// Prune deletes the statements and HiveServers whose last event came
// before before, and returns how many rows went. It is the retention
// step (slowpeer.hiveserver.retention) that the leader of the service
// replicas runs, so replicas sharing a MySQL store do not all delete the
// same rows; it is safe beside Commit and Snapshot.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	if err := s.CheckSchema(ctx); err != nil {
		return 0, err
	}
	cut := before.UnixMilli()
	var n int64
	for _, q := range []string{pruneQueries, pruneServers} {
		res, err := s.db.ExecContext(ctx, q, cut)
		if err != nil {
			return n, fmt.Errorf("prune %s: %w", s.desc, err)
		}
		k, _ := res.RowsAffected()
		n += k
	}
	return n, nil
}
