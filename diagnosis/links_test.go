package diagnosis

import (
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// TestLinkConfirmer drives the link rule through one direction, a → b,
// reported every 5 minutes and read every minute.
func TestLinkConfirmer(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const a, b = "10.0.0.1:9866", "10.0.0.2:9866"
	slow := []Finding{{Node: a, Kind: Link, Peer: b, Reporters: 1}}
	with := []reports.PeerLatency{{Node: b, LatencyMs: 10, Samples: 48}}
	without := []reports.PeerLatency{{Node: "10.0.0.3:9866", LatencyMs: 1, Samples: 48}}
	type step struct {
		report    []reports.PeerLatency // a's report at this minute, nil for none
		found     bool                  // the diagnosis finds a → b
		confirmed bool
	}
	f := func(name string, steps []step) {
		t.Helper()
		lc := NewLinkConfirmer(10, 15*time.Minute)
		reported := map[string]time.Time{}
		for i, s := range steps {
			now := t0.Add(time.Duration(i) * time.Minute)
			if s.report != nil {
				reported[a] = now
				lc.Report(a, now, s.report)
			}
			var fs []Finding
			if s.found {
				fs = slow
			}
			got := lc.Confirm(now, fs, reported)
			if (len(got) == 1) != s.confirmed || len(got) > 1 {
				t.Fatalf("%s: minute %d: confirmed %v, want %v", name, i, got, s.confirmed)
			}
			if s.confirmed && got[0].Node != LinkEntity(a, b) {
				t.Fatalf("%s: confirmed %v", name, got)
			}
		}
	}
	// One slow report (a pause) is not a link, however long it lasts.
	f("pause", []step{
		{with, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false},
		{with, false, false}, {nil, false, false},
	})
	// The read after the second slow report in a row confirms it.
	f("link", []step{
		{with, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false},
		{with, true, true}, {nil, true, true},
	})
	// A report without the pair (too few packets) is no news: the next
	// one that carries it counts as the second.
	f("held", []step{
		{with, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false},
		{without, false, false}, {nil, false, false}, {nil, false, false}, {nil, false, false}, {nil, false, false},
		{with, true, true},
	})
	// A report that carries the pair and finds it fine breaks the streak.
	f("broken", []step{
		{with, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false}, {nil, true, false},
		{with, false, false}, {nil, false, false}, {nil, false, false}, {nil, false, false}, {nil, false, false},
		{with, true, false},
	})
}

// TestLinkConfirmerBothDirections: a finding with both directions slow
// confirms the link with 2 once both reporters found it twice in a row,
// and a held streak ends a validity after its last slow report.
func TestLinkConfirmerBothDirections(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const a, b = "10.0.0.1:9866", "10.0.0.2:9866"
	both := []Finding{{Node: a, Kind: Link, Peer: b, Reporters: 2}}
	lc := NewLinkConfirmer(10, 15*time.Minute)
	reported := map[string]time.Time{}
	beat := func(at time.Time, from, to string, samples int64) {
		reported[from] = at
		lc.Report(from, at, []reports.PeerLatency{{Node: to, LatencyMs: 10, Samples: samples}})
	}
	beat(t0, a, b, 48)
	beat(t0, b, a, 48)
	if got := lc.Confirm(t0, both, reported); len(got) != 0 {
		t.Fatalf("confirmed after one report each: %v", got)
	}
	t1 := t0.Add(5 * time.Minute)
	beat(t1, a, b, 48)
	beat(t1, b, a, 48)
	got := lc.Confirm(t1, both, reported)
	if len(got) != 1 || got[0] != (reports.NodeCount{Node: LinkEntity(a, b), Reporters: 2}) {
		t.Fatalf("confirmed after two reports each: %v, want %s with 2", got, LinkEntity(a, b))
	}
	// Both reporters then send the pair on too few packets: held, while
	// the last slow report is younger than the validity.
	t2 := t1.Add(5 * time.Minute)
	beat(t2, a, b, 9)
	beat(t2, b, a, 9)
	if got := lc.Confirm(t2, nil, reported); len(got) != 0 {
		t.Fatalf("confirmed while held: %v", got)
	}
	if got := lc.Confirm(t1.Add(15*time.Minute), nil, reported); len(got) != 0 || len(lc.dirs) != 0 {
		t.Fatalf("a held streak outlived the validity: %v, %d followed", got, len(lc.dirs))
	}
}
