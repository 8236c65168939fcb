package tracker

import (
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestDumpRestoreRoundTrip(t *testing.T) {
	src := New(trackerValidity)
	src.Report(trackerAt(0), "a:1", []reports.SlowPeer{trackerPeer("s:1", 30), trackerPeer("s:2", 20)})
	src.Report(trackerAt(10*time.Minute), "b:1", []reports.SlowPeer{trackerPeer("s:1", 40)})
	src.Report(trackerAt(20*time.Minute), "c:1", []reports.SlowPeer{trackerPeer("s:3", 50)})
	src.Report(trackerAt(25*time.Minute), "c:1", nil) // c withdraws
	src.Report(trackerAt(-80*time.Minute), "old:1", []reports.SlowPeer{trackerPeer("s:4", 9)})

	now := trackerAt(30 * time.Minute)
	held := src.Dump(now)
	want := []Held{
		{Reporter: "a:1", Arrival: trackerAt(0), SlowPeers: []reports.SlowPeer{trackerPeer("s:1", 30), trackerPeer("s:2", 20)}},
		{Reporter: "b:1", Arrival: trackerAt(10 * time.Minute), SlowPeers: []reports.SlowPeer{trackerPeer("s:1", 40)}},
	}
	if !reflect.DeepEqual(held, want) {
		t.Fatalf("Dump = %+v\nwant %+v", held, want)
	}

	// Restored in a Tracker whose epoch is elsewhere (a new process).
	dst := New(trackerValidity)
	dst.Report(trackerAt(29*time.Minute), "z:1", nil)
	if n := dst.Restore(now, held); n != 2 {
		t.Fatalf("Restore applied %d, want 2", n)
	}
	for _, d := range []time.Duration{30 * time.Minute, 89*time.Minute + 59*time.Second, 95 * time.Minute, 101 * time.Minute} {
		at := trackerAt(d)
		if got, want := dst.Top(at, 10), src.Top(at, 10); !reflect.DeepEqual(got, want) {
			t.Errorf("at %v: restored Top = %+v, want %+v", d, got, want)
		}
	}
	if got := dst.Dump(now); !reflect.DeepEqual(got, want) {
		t.Errorf("Dump after Restore = %+v, want %+v", got, want)
	}
}

func TestRestoreKeepsNewerAndDropsExpired(t *testing.T) {
	tr := New(trackerValidity)
	tr.Report(trackerAt(time.Hour), "a:1", []reports.SlowPeer{trackerPeer("s:1", 7)})
	held := []Held{
		{Reporter: "a:1", Arrival: trackerAt(30 * time.Minute), SlowPeers: []reports.SlowPeer{trackerPeer("s:9", 70)}},
		{Reporter: "b:1", Arrival: trackerAt(-time.Hour), SlowPeers: []reports.SlowPeer{trackerPeer("s:9", 70)}},   // expired at 1h
		{Reporter: "c:1", Arrival: trackerAt(2 * time.Hour), SlowPeers: []reports.SlowPeer{trackerPeer("s:2", 5)}}, // future: now
		{Reporter: "d:1", Arrival: trackerAt(time.Hour)},                                                           // empty
	}
	if n := tr.Restore(trackerAt(time.Hour), held); n != 1 {
		t.Fatalf("Restore applied %d, want 1 (only c)", n)
	}
	got := tr.Dump(trackerAt(time.Hour))
	want := []Held{
		{Reporter: "a:1", Arrival: trackerAt(time.Hour), SlowPeers: []reports.SlowPeer{trackerPeer("s:1", 7)}},
		{Reporter: "c:1", Arrival: trackerAt(time.Hour), SlowPeers: []reports.SlowPeer{trackerPeer("s:2", 5)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Dump = %+v\nwant %+v", got, want)
	}
	// An older held report of a known reporter loses; a newer one wins.
	newer := []Held{{Reporter: "a:1", Arrival: trackerAt(time.Hour + time.Minute), SlowPeers: []reports.SlowPeer{trackerPeer("s:3", 8)}}}
	if n := tr.Restore(trackerAt(time.Hour+2*time.Minute), newer); n != 1 {
		t.Fatalf("newer Restore applied %d, want 1", n)
	}
	if tr.IsSlow(trackerAt(time.Hour+2*time.Minute), "s:1") || !tr.IsSlow(trackerAt(time.Hour+2*time.Minute), "s:3") {
		t.Fatal("a newer held report did not replace the older one")
	}
}

// Restored reports meet the Limits a posted report meets: those that
// would take the Tracker past them are left out, the others applied.
func TestRestoreKeepsTheLimits(t *testing.T) {
	tr := NewLimited(trackerValidity, Limits{MaxEntries: 3, MaxSlowNodes: 2})
	at := trackerAt(time.Hour)
	held := []Held{
		{Reporter: "a:1", Arrival: at, SlowPeers: []reports.SlowPeer{trackerPeer("s:1", 7), trackerPeer("s:2", 7)}},
		{Reporter: "b:1", Arrival: at, SlowPeers: []reports.SlowPeer{trackerPeer("s:3", 7)}},                        // a third slow node
		{Reporter: "c:1", Arrival: at, SlowPeers: []reports.SlowPeer{trackerPeer("s:1", 7), trackerPeer("s:2", 7)}}, // a fourth entry
		{Reporter: "d:1", Arrival: at, SlowPeers: []reports.SlowPeer{trackerPeer("s:2", 7)}},                        // fits
	}
	if n := tr.Restore(at, held); n != 2 {
		t.Fatalf("Restore applied %d, want 2 (a and d)", n)
	}
	var got []string
	for _, h := range tr.Dump(at) {
		got = append(got, h.Reporter)
	}
	if want := []string{"a:1", "d:1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("restored reporters %v, want %v", got, want)
	}
	if err := tr.Report(at, "e:1", []reports.SlowPeer{trackerPeer("s:9", 1)}); err == nil {
		t.Fatal("a report past the limits was taken after the restore")
	}
}
