package hiveserver

// Query is one row of the store: one statement on one HiveServer, as the
// table of the original design holds it (server, hook, queryId, queryStr,
// jobName, preTime, postTime). It is a plain value, safe to copy.
type Query struct {
	// Server and QueryID identify the statement.
	Server  string
	QueryID string
	// Hook is PreExec while the statement runs, else the hook that ended
	// it (an end that arrives before the start sets it too).
	Hook Hook
	// QueryStr is the statement's text; JobName its mapred.job.name.
	QueryStr string
	JobName  string
	// PreTimeMs is when it started, ms since the epoch; 0 until the PRE
	// event arrives.
	PreTimeMs int64
	// PostTimeMs is when it ended, ms since the epoch; 0 until the POST
	// or FAILURE event arrives.
	PostTimeMs int64
}

// Running reports whether the statement has started and not ended.
func (q Query) Running() bool { return q.PreTimeMs != 0 && q.PostTimeMs == 0 }

// Finished reports whether both its start and its end are known.
func (q Query) Finished() bool { return q.PreTimeMs != 0 && q.PostTimeMs != 0 }

// DurationMs is how long a finished statement ran, never negative (the
// two events come from one clock, but a hook may misbehave); 0 unless
// Finished.
func (q Query) DurationMs() int64 {
	if !q.Finished() {
		return 0
	}
	return max(0, q.PostTimeMs-q.PreTimeMs)
}

// history is what a finished statement adds to its job's history: its
// jobName and duration, ok false when it adds nothing (not finished, or no
// jobName).
func (q Query) history() (job string, durationMs int64, ok bool) {
	if !q.Finished() || q.JobName == "" {
		return "", 0, false
	}
	return q.JobName, q.DurationMs(), true
}
