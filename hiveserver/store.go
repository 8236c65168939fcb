package hiveserver

import (
	"context"
	"errors"
)

// Store keeps hook events, one row per statement (a [Query]), and the
// totals a Picker loads at start: the job histories and the servers' last
// events. A Picker does all of its writing from one goroutine, but a Store
// must be safe for concurrent use (several Pickers may share one, as
// service replicas share a MySQL database). Package
// [github.com/slowpeer/slowpeer/hiveserver/sqlstore] keeps them in SQLite
// or MySQL/MariaDB; [MemoryStore] keeps them in memory.
type Store interface {
	// Snapshot reads the open statements, the job histories and the servers'
	// last events as one consistent snapshot.
	Snapshot(ctx context.Context) (Snapshot, error)
	// Commit stores valid events (Event.Validate), in order, in one
	// transaction, and returns the changes they made, as MergeBatch
	// computes them from the rows stored before. Either every event is
	// stored or, on error, none is; an error that wraps
	// ErrCommitUncertain means the outcome is unknown (the commit itself
	// failed), and the Picker reloads its workload. Commit returns only
	// once the events are durable, as far as the store is.
	Commit(ctx context.Context, events []Event) ([]Change, error)
}

// ErrStoreNotReady is wrapped by a Store's error when it cannot serve yet
// but will without anyone's help here, as a shared SQL store whose schema
// the leader of the service replicas has yet to migrate. A Picker waits
// for it (Picker.Run).
var ErrStoreNotReady = errors.New("store not ready")

// ErrStoreTooNew is wrapped by a Store's error when its schema is newer
// than this program knows: a newer one migrated it (a rolling upgrade).
// Waiting does not help; a newer binary does. A Picker refuses picks and
// events while it lasts, rather than write rows of an older shape.
var ErrStoreTooNew = errors.New("store schema newer than this program knows")

// ErrCommitUncertain is wrapped by the error of a Store's Commit whose
// outcome is unknown: the events may or may not be stored.
var ErrCommitUncertain = errors.New("outcome of the commit unknown")

// Snapshot is what a Store holds that the workload is built from. It is a
// plain value; the Picker does not keep its maps.
type Snapshot struct {
	// Open are the statements started and not ended (Server, QueryID,
	// JobName and PreTimeMs set; Hook PreExec), in any order.
	Open []Query
	// Jobs is the history of every jobName with a finished statement.
	// An entry may be zero (its statements' histories cancelled out).
	Jobs map[string]JobTotals
	// Servers maps every HiveServer that sent an event to the latest
	// timestamp, in ms since the epoch, of an event of it that changed a
	// row.
	Servers map[string]int64
}

// JobTotals is the history of one jobName: how many of its statements
// finished, and the sum of their durations. In a Batch it is a
// difference, which may be negative.
type JobTotals struct {
	Finished int64
	TotalMs  int64
}

// QueryKey identifies a statement's row.
type QueryKey struct {
	Server, QueryID string
}

// Key returns the row's key.
func (q Query) Key() QueryKey { return QueryKey{q.Server, q.QueryID} }

// Change is what one event did to its statement's row: the row before it
// (Existed false: there was none) and after it, both without QueryStr, and
// the event's timestamp. It is a plain value, safe to copy.
type Change struct {
	Before  Query
	Existed bool
	After   Query
	EventMs int64
}
