package simulate

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// TestIncidentScore follows a hand-made timeline of a slow set through
// each scoring rule: a detection and its time, the kind, a false
// positive, a leave and a re-entry during an incident (two flaps), a
// late entry within LateGrace, and an entry long after (a false
// positive again).
func TestIncidentScore(t *testing.T) {
	incs := []incident{
		{from: 0, to: 10 * time.Minute, truth: []string{"a"}, kind: diagnosis.Both},
		{from: 20 * time.Minute, to: 30 * time.Minute, truth: []string{"b"}, kind: diagnosis.Inbound},
		{from: 40 * time.Minute, to: 50 * time.Minute, truth: []string{"c"}, kind: diagnosis.Both},
	}
	s := newIncidentScore(incs)
	kinds := map[string]string{"a": "both", "b": "outbound", "c": "both", "x": "inbound"}
	members := map[string]bool{}
	step := func(at time.Duration, set ...string) {
		t.Helper()
		cur := map[string]bool{}
		for _, e := range set {
			cur[e] = true
		}
		s.observe(epoch.Add(at), members, cur, func(e string) string { return kinds[e] })
		members = cur
	}
	step(30 * time.Second)
	step(time.Minute, "a")              // found after 60 s, kind right
	step(2*time.Minute, "a", "x")       // x is at fault in no incident
	step(3 * time.Minute)               // a leaves during its incident, x leaves
	step(4*time.Minute, "a")            // a comes back during it
	step(21*time.Minute, "a", "b")      // b found after 60 s, kind wrong
	step(52*time.Minute, "a", "b", "c") // c's incident ended 2 min ago: a late detection
	step(60 * time.Minute)
	step(70*time.Minute, "a") // long after a's incident
	m := s.metrics(epoch.Add(2 * time.Hour))
	p := func(x float64) *float64 { return &x }
	want := &IncidentMetrics{Incidents: 3, AtFault: 3, Detected: 3, Recall: p(1), Precision: p(4.0 / 6),
		FalsePositives: 2, TimeToEnterSeconds: &Quantiles{P50: 60, P95: 720}, KindRight: p(2.0 / 3),
		FlapsPerHour: 2 / 0.5}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v (%v, %v, %v, %+v)\nwant %+v", m, *m.Recall, *m.Precision, *m.KindRight, *m.TimeToEnterSeconds, want)
	}
	// Incidents that begin after the end are not counted.
	if m := s.metrics(epoch.Add(30 * time.Minute)); m.Incidents != 2 || m.AtFault != 2 {
		t.Fatalf("to 30 min: %+v", m)
	}
}

// TestDrawIncidentsSmallCluster checks that incidents reuse nodes once
// every node was used, links too (their far end counts as used).
func TestDrawIncidentsSmallCluster(t *testing.T) {
	for _, sc := range []Scenario{SlowLink, SlowHost, SlowRack} {
		cfg := DefaultConfig(6, sc)
		cfg.RackSize, cfg.RemotePeers, cfg.Incidents, cfg.Every, cfg.Lasting = 3, 3, 20, time.Minute, time.Minute
		c, err := newCluster(cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if in := drawIncidents(cfg, c); len(in) != 20 || len(in[19].truth) == 0 {
			t.Fatalf("%s: %d incidents", sc, len(in))
		}
	}
}
