package datanode

import (
	"fmt"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Scheduler decides when an agent sends its next heartbeat to one
// NameNode-side service and whether that heartbeat carries the slow-peer
// report. It is the pure core of one heartbeat loop: it never reads the
// clock; the caller passes the time in and does the waiting and sending.
//
// The schedule is that of Hadoop's BPServiceActor.Scheduler, one per
// service: a heartbeat is due at start and HeartbeatInterval after each
// heartbeat began; the report is due at start and then ReportInterval
// after the last report was delivered to this service, so a report that
// was not delivered rides on the next heartbeat again, and until a first
// report has been delivered a test skipped for lack of data is not sent
// (Reported). Unlike Hadoop, which retries a failed heartbeat after the
// usual interval, consecutive failures back off exponentially with jitter
// (see Backoff), so that a restarted service is not met by all its
// DataNodes in the same instant.
//
// An early second look (Named): when a delivered report names a peer slow
// that the report delivered before it did not, the next report is due one
// span of the rolling windows (RollingWindow × RollingWindows) after it
// instead of a whole ReportInterval, and the one after that is back on the
// schedule. The follow-up's windows do not overlap the first report's, so
// it is an independent second observation, and the service, which confirms
// a slow link by two slow reports in a row (diagnosis.LinkConfirmer), has
// it 3 minutes after the first instead of 5 at the defaults. Hadoop has no
// such rule.
//
// A Scheduler is not safe for concurrent use. Its zero value is not
// usable; construct it with NewScheduler.
type Scheduler struct {
	heartbeat, report, maxBackoff time.Duration
	jitter                        func() float64

	nextBeat   time.Time // when the next heartbeat is due
	nextReport time.Time // when the next report is due
	failures   int       // consecutive failed heartbeats
	reported   bool      // a report has been delivered
	named      []string  // the peers the last delivered report named slow
}

// NewScheduler returns the Scheduler of a loop that starts at now, with a
// heartbeat and a report due at once. jitter returns a number in [0, 1)
// each time it is called (math/rand/v2.Float64, or a fixed value in
// tests). It panics if heartbeat or report is not positive or maxBackoff
// is shorter than heartbeat.
func NewScheduler(now time.Time, heartbeat, report, maxBackoff time.Duration, jitter func() float64) *Scheduler {
	if heartbeat <= 0 || report <= 0 || maxBackoff < heartbeat || jitter == nil {
		panic(fmt.Sprintf("BUG: datanode.NewScheduler(heartbeat %v, report %v, maxBackoff %v, jitter set %v)",
			heartbeat, report, maxBackoff, jitter != nil))
	}
	return &Scheduler{heartbeat: heartbeat, report: report, maxBackoff: maxBackoff, jitter: jitter,
		nextBeat: now, nextReport: now}
}

// Next returns how long after now the next heartbeat is due, 0 when it is
// due already.
func (s *Scheduler) Next(now time.Time) time.Duration {
	return max(0, s.nextBeat.Sub(now))
}

// Begin marks a heartbeat that begins at now and returns whether it must
// carry the slow-peer report. The following heartbeat is due
// HeartbeatInterval after now, whatever becomes of this one, unless
// Failed says otherwise.
//
// Reference: BPServiceActor.sendHeartBeat (scheduleNextHeartbeat, then
// isOutliersReportDue).
func (s *Scheduler) Begin(now time.Time) (report bool) {
	s.nextBeat = now.Add(s.heartbeat)
	return !now.Before(s.nextReport)
}

// Delivered records that the heartbeat begun last was acknowledged at now.
// If it carried the report, the next report is due ReportInterval after
// now; otherwise a report that was due stays due.
//
// Reference: BPServiceActor.sendHeartBeat ("If the report was due and
// successfully sent, schedule the next one").
func (s *Scheduler) Delivered(now time.Time, report bool) {
	s.failures = 0
	if report {
		s.nextReport = now.Add(s.report)
		s.reported = true
	}
}

// Named records the peers that the report delivered at now (Delivered
// with report true) named slow. If one of them was not named by the
// report delivered before, the next report is due span after now, unless
// it is due sooner already; the report after that follows ReportInterval
// after it, as usual. A span of 0 turns the rule off, as for a source whose
// averages span more than a report interval (Hadoop's 3 hours): a sooner
// report would see mostly the same packets again.
func (s *Scheduler) Named(now time.Time, slow []reports.SlowPeer, span time.Duration) {
	fresh := false
	for _, p := range slow {
		fresh = fresh || !slices.Contains(s.named, p.Node)
	}
	s.named = s.named[:0]
	for _, p := range slow {
		s.named = append(s.named, p.Node)
	}
	if fresh && span > 0 && now.Add(span).Before(s.nextReport) {
		s.nextReport = now.Add(span)
	}
}

// Reported reports whether a report has been delivered since the start.
// Until one has, an agent whose test was skipped for lack of data (too few
// peers with enough samples) sends the heartbeat without the report, which
// therefore stays due: the first report with data then goes on the next
// heartbeat, not a whole ReportInterval after an empty one. Hadoop sends
// the empty report and waits the interval, so a new cluster's first
// detection waits up to 30 minutes more.
func (s *Scheduler) Reported() bool { return s.reported }

// Failed records that the heartbeat begun last failed at now. The next
// attempt is due Backoff(failures) after now; a report that was due stays
// due.
func (s *Scheduler) Failed(now time.Time) {
	s.failures++
	s.nextBeat = now.Add(Backoff(s.failures, s.heartbeat, s.maxBackoff, s.jitter()))
}

// Failures returns the number of consecutive failed heartbeats.
func (s *Scheduler) Failures() int { return s.failures }

// NextReport returns when the next report is due.
func (s *Scheduler) NextReport() time.Time { return s.nextReport }

// Backoff returns the pause after the given number of consecutive failures
// (≥ 1): d = min(base × 2^(failures−1), maxBackoff), then "equal jitter",
// d/2 + u × d/2, with u in [0, 1), so the pause lies in [d/2, d).
func Backoff(failures int, base, maxBackoff time.Duration, u float64) time.Duration {
	d := base
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	u = min(max(u, 0), 1)
	return d/2 + time.Duration(u*float64(d/2))
}
