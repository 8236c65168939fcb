package simulate

import (
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// TestLinkConfirmer drives the link rule through one direction, a → b,
// reported every 5 minutes and read every minute.
func TestLinkConfirmer(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const a, b = "10.0.0.1:9866", "10.0.0.2:9866"
	slow := []diagnosis.Finding{{Node: a, Kind: diagnosis.Link, Peer: b, Reporters: 1}}
	with := []reports.PeerLatency{{Node: b, LatencyMs: 10, Samples: 48}}
	without := []reports.PeerLatency{{Node: "10.0.0.3:9866", LatencyMs: 1, Samples: 48}}
	type step struct {
		report    []reports.PeerLatency // a's report at this minute, nil for none
		found     bool                  // the diagnosis finds a → b
		confirmed bool
	}
	f := func(name string, steps []step) {
		t.Helper()
		lc := newLinkConfirmer(10, 15*time.Minute)
		reported := map[string]time.Time{}
		for i, s := range steps {
			now := t0.Add(time.Duration(i) * time.Minute)
			if s.report != nil {
				reported[a] = now
				lc.report(a, now, s.report)
			}
			var fs []diagnosis.Finding
			if s.found {
				fs = slow
			}
			got := lc.confirm(now, fs, reported)
			if (len(got) == 1) != s.confirmed || len(got) > 1 {
				t.Fatalf("%s: minute %d: confirmed %v, want %v", name, i, got, s.confirmed)
			}
			if s.confirmed && got[0].Node != linkEntity(a, b) {
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
