package simulate

import (
	"math"
	"slices"
	"time"
)

// Metrics are one algorithm's figures over the measured part of a run,
// in the JSON shape of `slowpeer simulate -json`.
type Metrics struct {
	// Precision is, of the distinct entities (nodes, links) that were in
	// the slow set at some step, the share that is at fault; null when
	// none was.
	Precision *float64 `json:"precision"`
	// Recall is the share of the entities at fault that were in the slow
	// set at some step; null when nothing is at fault.
	Recall *float64 `json:"recall"`
	// FalsePositives is the number of distinct entities not at fault that
	// were in the slow set at some step.
	FalsePositives int `json:"falsePositives"`
	// TimeToDetectSeconds are the median and 95th percentile, over the
	// entities at fault that were found, of the time from the fault's
	// start to their first step in the slow set; null when none was found.
	TimeToDetectSeconds *Quantiles `json:"timeToDetectSeconds"`
	// FlapsPerHour counts the changes of membership of every entity, but
	// its first entry, per measured hour: a node that enters and stays
	// makes none, one that enters, leaves and comes back makes two.
	FlapsPerHour float64 `json:"flapsPerHour"`

	// Incidents are the figures per incident (incidentscore.go); absent
	// for the disks.
	Incidents *IncidentMetrics `json:"incidents,omitempty"`

	// FalsePositiveEntities names the false positives, sorted (not in the
	// JSON contract).
	FalsePositiveEntities []string `json:"-"`
}

// Quantiles are a median and a 95th percentile.
type Quantiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// score follows one algorithm's slow set over the measured part.
type score struct {
	start time.Time            // the measured part begins
	truth map[string]time.Time // entity at fault → the start of its incident

	prev    map[string]bool // members at the previous step
	atStart map[string]bool // members when the measured part began
	ever    map[string]bool
	found   map[string]time.Duration // entity at fault → time to detect
	changes map[string]int
	begun   bool
	inc     incidentScore
	disks   bool // scores disks: no incident figures
}

// newScore follows a slow set from start on; f says what is at fault and
// when.
func newScore(start time.Time, f *fault) *score {
	s := &score{start: start, truth: f.start, prev: map[string]bool{},
		ever: map[string]bool{}, found: map[string]time.Duration{}, changes: map[string]int{}}
	s.inc = newIncidentScore(f.incidents)
	return s
}

// observe records the members at now; kind says what the slow set calls
// a member (nil: nothing).
func (s *score) observe(now time.Time, members []string, kind func(entity string) string) {
	cur := make(map[string]bool, len(members))
	for _, m := range members {
		cur[m] = true
	}
	if now.After(s.start) {
		if !s.begun {
			s.begun, s.atStart = true, s.prev
		}
		for m := range cur {
			s.ever[m] = true
			if _, ok := s.found[m]; !ok {
				if start, at := s.truth[m]; at && !now.Before(start) {
					s.found[m] = now.Sub(start)
				}
			}
			if !s.prev[m] {
				s.changes[m]++
			}
		}
		for m := range s.prev {
			if !cur[m] {
				s.changes[m]++
			}
		}
		s.inc.observe(now, s.prev, cur, kind)
	}
	s.prev = cur
}

// newDiskScore follows a slow set of disks from start on, truth at fault
// from start.
func newDiskScore(start time.Time, truth []string) *score {
	f := fault{start: map[string]time.Time{}}
	for _, t := range truth {
		f.start[t] = start
	}
	s := newScore(start, &f)
	s.disks = true
	return s
}

// metrics returns the figures of a measured part of hours hours, which
// ends at end.
func (s *score) metrics(hours float64, end time.Time) Metrics {
	var m Metrics
	if !s.disks {
		m.Incidents = s.inc.metrics(end)
	}
	tp := 0
	for e := range s.ever {
		if _, at := s.truth[e]; at {
			tp++
		} else {
			m.FalsePositiveEntities = append(m.FalsePositiveEntities, e)
		}
	}
	slices.Sort(m.FalsePositiveEntities)
	m.FalsePositives = len(m.FalsePositiveEntities)
	if tp+m.FalsePositives > 0 {
		p := float64(tp) / float64(tp+m.FalsePositives)
		m.Precision = &p
	}
	if len(s.truth) > 0 {
		r := float64(tp) / float64(len(s.truth))
		m.Recall = &r
	}
	if len(s.found) > 0 {
		var d []float64
		for _, t := range s.found {
			d = append(d, t.Seconds())
		}
		slices.Sort(d)
		m.TimeToDetectSeconds = &Quantiles{P50: quantile(d, 0.5), P95: quantile(d, 0.95)}
	}
	flaps := 0
	for e, n := range s.changes {
		if !s.atStart[e] {
			n-- // the first entry
		}
		flaps += n
	}
	m.FlapsPerHour = float64(flaps) / hours
	return m
}

// quantile is the nearest-rank quantile q of sorted d.
func quantile(d []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(d)))) - 1
	return d[min(max(i, 0), len(d)-1)]
}
