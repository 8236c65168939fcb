package hiveserver

import (
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// workload is the in-memory view of the store that lists and picks read:
// every HiveServer's open statements and every job's history. It is the
// pure core of the Picker: no clock, no I/O, not safe for concurrent use
// (the Picker guards it). It equals what the store holds as long as it is
// built from a snapshot and then given every change committed after it.
type workload struct {
	servers map[string]*serverLoad
	jobs    map[string]*jobStats
}

// serverLoad is one HiveServer's part of the workload.
type serverLoad struct {
	name, host  string
	lastEventMs int64 // the latest timestamp of an event it sent, 0 if none
	// running holds its open statements not yet found lost; index maps a
	// QueryID to its position there.
	running []openQuery
	index   map[string]int
	// lost holds the open statements found older than the query timeout
	// (QueryID to start time). An end may still come for one.
	lost map[string]int64
}

// openQuery is a started, not ended statement.
type openQuery struct {
	id    string
	preMs int64
	job   *jobStats // nil when it has no jobName
}

// jobStats is one jobName's history of finished statements.
type jobStats struct {
	finished int64
	totalMs  int64
	meanMs   int64 // totalMs / finished, kept for the pick's inner loop
}

func (j *jobStats) add(n, ms int64) {
	j.finished += n
	j.totalMs += ms
	j.meanMs = 0
	if j.finished > 0 {
		j.meanMs = max(0, j.totalMs/j.finished)
	}
}

// newWorkload builds the view of a store snapshot.
func newWorkload(snap Snapshot) *workload {
	w := &workload{servers: map[string]*serverLoad{}, jobs: map[string]*jobStats{}}
	for job, t := range snap.Jobs {
		w.job(job).add(t.Finished, t.TotalMs)
	}
	for name, ms := range snap.Servers {
		w.server(name).lastEventMs = ms
	}
	for _, q := range snap.Open {
		w.server(q.Server).add(openQuery{id: q.QueryID, preMs: q.PreTimeMs, job: w.job(q.JobName)})
	}
	return w
}

func (w *workload) server(name string) *serverLoad {
	s := w.servers[name]
	if s == nil {
		s = &serverLoad{name: name, host: reports.Host(name), index: map[string]int{}, lost: map[string]int64{}}
		w.servers[name] = s
	}
	return s
}

// job returns the history of jobName, nil for no jobName.
func (w *workload) job(name string) *jobStats {
	if name == "" {
		return nil
	}
	j := w.jobs[name]
	if j == nil {
		j = &jobStats{}
		w.jobs[name] = j
	}
	return j
}

// apply brings the view up to date with one committed change.
func (w *workload) apply(c Change) {
	s := w.server(c.After.Server)
	s.lastEventMs = max(s.lastEventMs, c.EventMs)
	if c.Existed && c.Before.Running() {
		s.remove(c.Before.QueryID)
	}
	if c.After.Running() {
		s.add(openQuery{id: c.After.QueryID, preMs: c.After.PreTimeMs, job: w.job(c.After.JobName)})
	}
	if job, ms, ok := c.Before.history(); ok && c.Existed {
		w.job(job).add(-1, -ms)
	}
	if job, ms, ok := c.After.history(); ok {
		w.job(job).add(1, ms)
	}
}

func (s *serverLoad) add(q openQuery) {
	s.remove(q.id)
	s.index[q.id] = len(s.running)
	s.running = append(s.running, q)
}

func (s *serverLoad) remove(id string) {
	delete(s.lost, id)
	i, ok := s.index[id]
	if !ok {
		return
	}
	last := len(s.running) - 1
	s.running[i] = s.running[last]
	s.index[s.running[i].id] = i
	s.running[last] = openQuery{}
	s.running = s.running[:last]
	delete(s.index, id)
}

// costs are the Config durations the load estimate uses, in milliseconds.
type costs struct {
	timeoutMs, minRemainingMs, defaultMs int64
}

func costsOf(c Config) costs {
	return costs{c.QueryTimeout.Milliseconds(), c.MinRemaining.Milliseconds(), c.DefaultCost.Milliseconds()}
}

// remainingMs is the expected remaining time of a statement of job j that
// has run elapsedMs: its job's mean duration minus elapsedMs, at least
// minRemainingMs; defaultMs without history.
func (c costs) remainingMs(j *jobStats, elapsedMs int64) int64 {
	if j == nil || j.finished <= 0 {
		return c.defaultMs
	}
	return max(j.meanMs-max(elapsedMs, 0), c.minRemainingMs)
}

// measure returns s's running statements and load at nowMs, and how many
// of its statements are lost (aged: those of them that expire has not
// moved yet).
func (c costs) measure(s *serverLoad, nowMs int64) (running int, loadMs int64, lost, aged int) {
	for i := range s.running {
		q := &s.running[i]
		elapsed := nowMs - q.preMs
		if elapsed >= c.timeoutMs {
			aged++
			continue
		}
		running++
		loadMs += c.remainingMs(q.job, elapsed)
	}
	return running, loadMs, len(s.lost) + aged, aged
}

// expire moves the statements older than the timeout at nowMs from
// running to lost and returns how many it moved per server.
func (w *workload) expire(nowMs int64, c costs) map[string]int {
	var moved map[string]int
	for _, s := range w.servers {
		for i := 0; i < len(s.running); {
			q := s.running[i]
			if nowMs-q.preMs < c.timeoutMs {
				i++
				continue
			}
			s.remove(q.id) // moves the last one to i
			s.lost[q.id] = q.preMs
			if moved == nil {
				moved = map[string]int{}
			}
			moved[s.name]++
		}
	}
	return moved
}

// knownByEvents reports whether s is known from its own events at nowMs:
// it sent one within expiry, or it still runs statements.
func (s *serverLoad) knownByEvents(nowMs int64, expiry time.Duration, running int) bool {
	return running > 0 || s.lastEventMs != 0 && nowMs-s.lastEventMs < expiry.Milliseconds()
}
