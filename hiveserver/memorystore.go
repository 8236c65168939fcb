package hiveserver

import (
	"context"
	"sync"
)

// MemoryStore is a Store that keeps its rows in memory, so they do not
// survive the process: for tests, examples and embedding a Picker where
// the workload need not outlive a restart. Several Pickers may share one,
// as service replicas share a database. Its zero value is an empty store,
// ready to use; it is safe for concurrent use.
type MemoryStore struct {
	// mu guards the rows and the totals. Commit holds it throughout, so
	// its batch is one transaction.
	mu      sync.Mutex
	rows    map[QueryKey]Query
	jobs    map[string]JobTotals
	servers map[string]int64
}

// Snapshot returns the open statements, the job histories and the servers'
// last events.
func (m *MemoryStore) Snapshot(ctx context.Context) (Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	snap := Snapshot{Jobs: make(map[string]JobTotals, len(m.jobs)), Servers: make(map[string]int64, len(m.servers))}
	for _, q := range m.rows {
		if q.Running() {
			snap.Open = append(snap.Open, Query{Server: q.Server, QueryID: q.QueryID, Hook: PreExec,
				JobName: q.JobName, PreTimeMs: q.PreTimeMs})
		}
	}
	for job, t := range m.jobs {
		snap.Jobs[job] = t
	}
	for server, ms := range m.servers {
		snap.Servers[server] = ms
	}
	return snap, nil
}

// Commit stores events at once, as MergeBatch merges them into the rows,
// and returns their changes. It fails only when ctx has ended, and then
// stores nothing.
func (m *MemoryStore) Commit(ctx context.Context, events []Event) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows, m.jobs, m.servers = map[QueryKey]Query{}, map[string]JobTotals{}, map[string]int64{}
	}
	stored := make(map[QueryKey]Query, len(events))
	for _, e := range events {
		k := QueryKey{e.Server, e.QueryID}
		if q, ok := m.rows[k]; ok {
			stored[k] = q
		}
	}
	b := MergeBatch(stored, events)
	for _, q := range b.Rows {
		m.rows[q.Key()] = q
	}
	for job, d := range b.Jobs {
		t := m.jobs[job]
		m.jobs[job] = JobTotals{t.Finished + d.Finished, t.TotalMs + d.TotalMs}
	}
	for server, ms := range b.Servers {
		m.servers[server] = max(m.servers[server], ms)
	}
	return b.Changes, nil
}

// Lookup returns the row of a statement, and false when there is none,
// as sqlstore's Store does. It fails only when ctx has ended.
func (m *MemoryStore) Lookup(ctx context.Context, server, queryID string) (Query, bool, error) {
	if err := ctx.Err(); err != nil {
		return Query{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	q, ok := m.rows[QueryKey{server, queryID}]
	return q, ok, nil
}
