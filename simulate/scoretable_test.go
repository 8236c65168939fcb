package simulate

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// step is one read of a slow set in a hand-made timeline: its members at
// an offset since the run's start, and what it calls each.
type step struct {
	at      time.Duration
	members map[string]string // entity → kind ("" for none)
}

// timeline feeds steps to s, as the runs read the slow sets.
func timeline(s *incidentScore, steps []step) {
	prev := map[string]bool{}
	for _, st := range steps {
		cur := map[string]bool{}
		for e := range st.members {
			cur[e] = true
		}
		s.observe(epoch.Add(st.at), prev, cur, func(e string) string { return st.members[e] })
		prev = cur
	}
}

// TestIncidentScoreTable scores hand-made timelines, one rule a case:
// detected, time to enter, kind right, false entries, flaps.
func TestIncidentScoreTable(t *testing.T) {
	min := time.Minute
	one := []incident{{from: 10 * min, to: 20 * min, truth: []string{"a"}, kind: diagnosis.Both}}
	rack := []incident{{from: 10 * min, to: 20 * min, truth: []string{"r1", "r2", "r3"}, kind: diagnosis.Rack}}
	link := []incident{{from: 10 * min, to: 20 * min, truth: []string{"link:a|b"}, kind: diagnosis.Link}}
	p := func(x float64) *float64 { return &x }
	q := func(p50, p95 float64) *Quantiles { return &Quantiles{P50: p50, P95: p95} }
	for _, c := range []struct {
		name  string
		incs  []incident
		steps []step
		want  IncidentMetrics
	}{
		{"never entered", one, []step{{11 * min, nil}, {30 * min, nil}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Recall: p(0)}},
		{"entered 30 s in, kind right, stays", one, []step{
			{10*min + 30*time.Second, map[string]string{"a": "both"}},
			{15 * min, map[string]string{"a": "both"}},
			{25 * min, nil},
		}, IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(30, 30), KindRight: p(1)}},
		{"kind wrong", one, []step{{11 * min, map[string]string{"a": "inbound"}}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(60, 60), KindRight: p(0)}},
		{"the latest kind counts", one, []step{
			{11 * min, map[string]string{"a": "inbound"}},
			{12 * min, map[string]string{"a": "both"}},
		}, IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(60, 60), KindRight: p(1)}},
		{"before the incident: a false entry", one, []step{
			{5 * min, map[string]string{"a": "both"}},
			{6 * min, nil},
		}, IncidentMetrics{Incidents: 1, AtFault: 1, Recall: p(0), Precision: p(0), FalsePositives: 1}},
		{"late, within the grace", one, []step{{29 * min, map[string]string{"a": "both"}}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(19*60, 19*60), KindRight: p(1)}},
		{"after the grace: a false entry", one, []step{{31 * min, map[string]string{"a": "both"}}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Recall: p(0), Precision: p(0), FalsePositives: 1}},
		{"a bystander", one, []step{{11 * min, map[string]string{"a": "both", "x": "inbound"}}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(0.5), FalsePositives: 1, TimeToEnterSeconds: q(60, 60), KindRight: p(1)}},
		{"leaves and re-enters during the incident: two flaps in 10 minutes", one, []step{
			{11 * min, map[string]string{"a": "both"}},
			{12 * min, nil},
			{13 * min, map[string]string{"a": "both"}},
		}, IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(60, 60), KindRight: p(1), FlapsPerHour: 12}},
		{"leaves after the incident: no flap", one, []step{
			{11 * min, map[string]string{"a": "both"}},
			{21 * min, nil},
		}, IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(1), TimeToEnterSeconds: q(60, 60), KindRight: p(1)}},
		{"a rack: each node a case, times apart", rack, []step{
			{10*min + 20*time.Second, map[string]string{"r1": "rack"}},
			{10*min + 40*time.Second, map[string]string{"r1": "rack", "r2": "both"}},
		}, IncidentMetrics{Incidents: 1, AtFault: 3, Detected: 2, Recall: p(2.0 / 3), Precision: p(1), TimeToEnterSeconds: q(20, 40), KindRight: p(0.5)}},
		{"a link", link, []step{{10*min + 20*time.Second, map[string]string{"link:a|b": "link", "link:a|c": "link"}}},
			IncidentMetrics{Incidents: 1, AtFault: 1, Detected: 1, Recall: p(1), Precision: p(0.5), FalsePositives: 1, TimeToEnterSeconds: q(20, 20), KindRight: p(1)}},
	} {
		s := newIncidentScore(c.incs)
		timeline(&s, c.steps)
		if got := s.metrics(epoch.Add(time.Hour)); !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, show(got), show(&c.want))
		}
	}
}

// show prints IncidentMetrics with its pointers' values.
func show(m *IncidentMetrics) string {
	f := func(x *float64) any {
		if x == nil {
			return nil
		}
		return *x
	}
	var q any
	if m.TimeToEnterSeconds != nil {
		q = *m.TimeToEnterSeconds
	}
	return fmt.Sprintln("incidents", m.Incidents, "atFault", m.AtFault, "detected", m.Detected, "recall", f(m.Recall),
		"precision", f(m.Precision), "false", m.FalsePositives, "enter", q, "kind", f(m.KindRight), "flaps/h", m.FlapsPerHour)
}

// TestQuantile pins the nearest-rank quantiles of the time to enter.
func TestQuantile(t *testing.T) {
	f := func(d []float64, q, want float64) {
		t.Helper()
		if got := quantile(d, q); got != want {
			t.Errorf("quantile(%v, %v) = %v, want %v", d, q, got, want)
		}
	}
	f([]float64{7}, 0.95, 7)
	f([]float64{1, 2, 3, 4}, 0.5, 2)
	twenty := make([]float64, 20)
	for i := range twenty {
		twenty[i] = float64(i + 1)
	}
	f(twenty, 0.95, 19) // the 19th of 20: one case in 20 may be slower
	f(twenty, 0.5, 10)
	f(append(twenty, 21), 0.95, 20)
}
