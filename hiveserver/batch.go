package hiveserver

// Batch is what a sequence of events does to the rows it touches, worked
// out in memory: what one transaction of a Store writes, and the changes
// it returns. It is a plain value.
type Batch struct {
	// Changes has one entry per event that changed its row, in the order
	// of the events.
	Changes []Change
	// Rows are the rows that changed, each once with its state after the
	// last event, in the order of their first change.
	Rows []Query
	// Jobs adds to the history of each jobName (a difference; an entry
	// may be zero).
	Jobs map[string]JobTotals
	// Servers maps each HiveServer with an event that changed a row to
	// the latest timestamp of such an event, in ms since the epoch.
	Servers map[string]int64
}

// MergeBatch applies events, in order, to the rows stored before them:
// stored holds the row of every event's statement that exists (a key
// without an entry has no row). It does not modify stored.
//
// The first event of each kind wins: a repeated event, or a second,
// different start or end, changes nothing. An end without a start is kept
// and completed by a start that comes later. queryStr and jobName are
// taken from the first event that has them; of a stored row only
// QueryStr's emptiness is read, so a store may stand any non-empty text
// for the stored one. A row's history (its job's finished count and total
// duration) is taken off the job before the change and added after it.
func MergeBatch(stored map[QueryKey]Query, events []Event) Batch {
	b := Batch{
		Changes: make([]Change, 0, len(events)),
		Jobs:    map[string]JobTotals{},
		Servers: map[string]int64{},
	}
	changed := map[QueryKey]int{} // index in b.Rows
	for _, e := range events {
		k := QueryKey{e.Server, e.QueryID}
		i, dirty := changed[k]
		var before Query
		var exists bool
		if dirty {
			before, exists = b.Rows[i], true
		} else {
			before, exists = stored[k]
		}
		after, ok := merge(before, exists, e)
		if !ok {
			continue
		}
		if job, ms, ok := before.history(); ok && exists {
			t := b.Jobs[job]
			b.Jobs[job] = JobTotals{t.Finished - 1, t.TotalMs - ms}
		}
		if job, ms, ok := after.history(); ok {
			t := b.Jobs[job]
			b.Jobs[job] = JobTotals{t.Finished + 1, t.TotalMs + ms}
		}
		b.Servers[e.Server] = max(b.Servers[e.Server], e.TimeMs)
		if dirty {
			b.Rows[i] = after
		} else {
			changed[k] = len(b.Rows)
			b.Rows = append(b.Rows, after)
		}
		before.QueryStr, after.QueryStr = "", ""
		b.Changes = append(b.Changes, Change{Before: before, Existed: exists, After: after, EventMs: e.TimeMs})
	}
	return b
}

// merge returns the row after event e, given the row before it (exists
// false: there is none), and whether anything changed (MergeBatch has the
// rules).
func merge(before Query, exists bool, e Event) (after Query, changed bool) {
	if !exists {
		after = Query{Server: e.Server, QueryID: e.QueryID, Hook: e.Hook, QueryStr: e.QueryStr, JobName: e.JobName}
		if e.Hook.Ends() {
			after.PostTimeMs = e.TimeMs
		} else {
			after.PreTimeMs = e.TimeMs
		}
		return after, true
	}
	after = before
	switch {
	case e.Hook == PreExec && after.PreTimeMs == 0:
		after.PreTimeMs = e.TimeMs
		changed = true
	case e.Hook.Ends() && after.PostTimeMs == 0:
		after.PostTimeMs, after.Hook = e.TimeMs, e.Hook
		changed = true
	}
	if after.QueryStr == "" && e.QueryStr != "" {
		after.QueryStr = e.QueryStr
		changed = true
	}
	if after.JobName == "" && e.JobName != "" {
		after.JobName = e.JobName
		changed = true
	}
	return after, changed
}
