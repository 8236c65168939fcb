package simulate

import (
	"slices"
	"time"
)

// LateGrace is how long after its incident ends an entity's entry into
// the slow set still counts as that incident's detection (a late one)
// rather than as a false positive.
const LateGrace = 10 * time.Minute

// IncidentMetrics are one algorithm's figures per incident, in the JSON
// shape of `slowpeer simulate -json` ("incidents"). An entity at fault
// in an incident (a node; each node of a slow rack or of one-percent-slow;
// a link) is one case.
type IncidentMetrics struct {
	// Incidents is the number of incidents injected in the measured part.
	Incidents int `json:"incidents"`
	// AtFault is the number of cases: entities at fault, incident by
	// incident.
	AtFault int `json:"atFault"`
	// Detected is the number of cases whose entity was in the slow set at
	// some step from its incident's start to LateGrace after its end.
	Detected int `json:"detected"`
	// Recall is Detected / AtFault; null without cases.
	Recall *float64 `json:"recall"`
	// Precision is, of the entries into the slow set, the share that were
	// of an entity at fault at that time (or within LateGrace after);
	// null without entries.
	Precision *float64 `json:"precision"`
	// FalsePositives is the number of entries of entities not at fault at
	// that time.
	FalsePositives int `json:"falsePositives"`
	// TimeToEnterSeconds are the median and 95th percentile, over the
	// detected cases, of the time from the incident's start to the
	// entity's first step in the slow set; null when none was detected.
	TimeToEnterSeconds *Quantiles `json:"timeToEnterSeconds"`
	// KindRight is the share of detected cases whose kind in the slow set
	// (what the verdict or the diagnosis called it when it entered) is
	// the incident's: inbound, outbound, both, link, rack; null when none
	// was detected.
	KindRight *float64 `json:"kindRight"`
	// FlapsPerHour is the number of leaves and re-entries of the cases'
	// entities during their incidents, per hour of incident (summed over
	// the incidents).
	FlapsPerHour float64 `json:"flapsPerHour"`
}

// incidentScore scores the entries into one slow set per incident.
type incidentScore struct {
	incidents []incident
	owner     map[string][]int // entity → its incidents, in order
	found     map[caseKey]time.Duration
	right     map[caseKey]bool
	entries   int
	falses    int
	flaps     int
}

// caseKey is one entity of one incident.
type caseKey struct {
	incident int
	entity   string
}

func newIncidentScore(incidents []incident) incidentScore {
	s := incidentScore{incidents: incidents, owner: map[string][]int{}, found: map[caseKey]time.Duration{},
		right: map[caseKey]bool{}}
	for k, in := range incidents {
		for _, e := range in.truth {
			s.owner[e] = append(s.owner[e], k)
		}
	}
	return s
}

// covering returns the latest incident of e that covers now, from its
// start to late after its end, or -1.
func (s *incidentScore) covering(e string, now time.Time, late time.Duration) int {
	t := now.Sub(epoch)
	ks := s.owner[e]
	for i := len(ks) - 1; i >= 0; i-- {
		in := &s.incidents[ks[i]]
		if t >= in.from && (in.to == forever || t <= in.to+late) {
			return ks[i]
		}
	}
	return -1
}

// observe takes the members before (prev) and at now (cur).
func (s *incidentScore) observe(now time.Time, prev, cur map[string]bool, kind func(string) string) {
	for e := range cur {
		entered := !prev[e]
		if entered {
			s.entries++
		}
		k := s.covering(e, now, LateGrace)
		if k < 0 {
			if entered {
				s.falses++
			}
			continue
		}
		key := caseKey{k, e}
		if _, ok := s.found[key]; !ok {
			s.found[key] = now.Sub(epoch.Add(s.incidents[k].from))
		} else if entered && s.covering(e, now, 0) == k {
			s.flaps++ // a re-entry during the incident
		}
		// The kind is the latest the slow set gave while it held the
		// entity for this incident.
		if kind != nil {
			if got := kind(e); got != "" {
				s.right[key] = got == string(s.incidents[k].kind)
			}
		}
	}
	for e := range prev {
		if !cur[e] {
			if s.covering(e, now, 0) >= 0 {
				s.flaps++ // a leave during the incident
			}
		}
	}
}

// metrics returns the figures of the incidents that began before end.
func (s *incidentScore) metrics(end time.Time) *IncidentMetrics {
	m := &IncidentMetrics{FalsePositives: s.falses}
	var hours float64
	for _, in := range s.incidents {
		from := epoch.Add(in.from)
		if !from.Before(end) {
			continue
		}
		m.Incidents++
		m.AtFault += len(in.truth)
		to := end
		if in.to != forever && epoch.Add(in.to).Before(end) {
			to = epoch.Add(in.to)
		}
		hours += to.Sub(from).Hours()
	}
	var d []float64
	right := 0
	for key, t := range s.found {
		d = append(d, t.Seconds())
		if s.right[key] {
			right++
		}
	}
	m.Detected = len(d)
	if m.AtFault > 0 {
		r := float64(m.Detected) / float64(m.AtFault)
		m.Recall = &r
	}
	if s.entries > 0 {
		p := float64(s.entries-s.falses) / float64(s.entries)
		m.Precision = &p
	}
	if len(d) > 0 {
		slices.Sort(d)
		m.TimeToEnterSeconds = &Quantiles{P50: quantile(d, 0.5), P95: quantile(d, 0.95)}
		k := float64(right) / float64(len(d))
		m.KindRight = &k
	}
	if hours > 0 {
		m.FlapsPerHour = float64(s.flaps) / hours
	}
	return m
}
