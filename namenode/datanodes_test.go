package namenode

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDataNodesDeadRule(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	deadAfter := DeadAfter(DefaultHeartbeatInterval, DefaultHeartbeatRecheckInterval)
	f := func(silent time.Duration, want State) {
		t.Helper()
		d := NewDataNodes(deadAfter, 0)
		d.Heartbeat(t0, "a:1")
		got, ok := d.State(t0.Add(silent), "a:1")
		if !ok || got != want {
			t.Fatalf("after %v silent: %q %v, want %q", silent, got, ok, want)
		}
	}
	// Reference: DatanodeManager.isDatanodeDead, lastUpdate <
	// now - heartbeatExpireInterval: dead strictly after the interval.
	f(0, Live)
	f(deadAfter-time.Nanosecond, Live)
	f(deadAfter, Live)
	f(deadAfter+time.Nanosecond, Dead)
	f(24*time.Hour, Dead)
}

func TestDataNodesLifecycle(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	d := NewDataNodes(time.Minute, 0)
	if _, ok := d.State(t0, "a:1"); ok {
		t.Fatal("unknown node has a state")
	}
	beat := func(now time.Time, node string) bool {
		t.Helper()
		revived, err := d.Heartbeat(now, node)
		if err != nil {
			t.Fatal(err)
		}
		return revived
	}
	if !beat(t0, "b:1") || !beat(t0, "a:1") {
		t.Fatal("a first heartbeat is not reported as new")
	}
	if beat(t0.Add(time.Second), "a:1") {
		t.Fatal("a live node's heartbeat is reported as a revival")
	}
	now := t0.Add(time.Minute + 500*time.Millisecond)
	if live, dead := d.Counts(now); live != 1 || dead != 1 {
		t.Fatalf("Counts = %d live, %d dead", live, dead)
	}
	want := []DataNode{
		{Node: "a:1", State: Live, LastHeartbeat: t0.Add(time.Second)},
		{Node: "b:1", State: Dead, LastHeartbeat: t0},
	}
	if got := d.List(now); !reflect.DeepEqual(got, want) {
		t.Fatalf("List = %+v, want %+v", got, want)
	}
	// Check reports each death once.
	if got := d.Check(now); !slices.Equal(got, []string{"b:1"}) {
		t.Fatalf("Check = %v", got)
	}
	if got := d.Check(now.Add(time.Hour)); !slices.Equal(got, []string{"a:1"}) {
		t.Fatalf("second Check = %v", got)
	}
	if got := d.Check(now.Add(2 * time.Hour)); len(got) != 0 {
		t.Fatalf("third Check = %v", got)
	}
	// A dead node that comes back is live again, and can die again.
	later := now.Add(3 * time.Hour)
	if !beat(later, "b:1") {
		t.Fatal("a dead node's heartbeat is not reported as a revival")
	}
	if s, _ := d.State(later, "b:1"); s != Live {
		t.Fatal("revived node not live")
	}
	if got := d.Check(later.Add(2 * time.Minute)); !slices.Equal(got, []string{"b:1"}) {
		t.Fatalf("Check after the second death = %v", got)
	}
	// A heartbeat stamped earlier than the newest does not move time back.
	d.Heartbeat(later.Add(-time.Hour), "b:1")
	if got := d.List(later)[1].LastHeartbeat; !got.Equal(later) {
		t.Fatalf("LastHeartbeat moved back to %v", got)
	}
	if d.Len() != 2 {
		t.Fatalf("Len = %d", d.Len())
	}
}

func TestNewDataNodesPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewDataNodes(0, 0) did not panic")
		}
	}()
	NewDataNodes(0, 0)
}

func TestDataNodesConcurrent(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	d := NewDataNodes(time.Minute, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				now := t0.Add(time.Duration(i) * time.Second)
				d.Heartbeat(now, fmt.Sprintf("n%d:%d", g, 1+i%50))
				d.Counts(now)
				d.Check(now)
			}
		})
	}
	wg.Wait()
	if d.Len() != 200 {
		t.Fatalf("Len = %d, want 200", d.Len())
	}
}

func BenchmarkDataNodesHeartbeat(b *testing.B) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	d := NewDataNodes(time.Minute, 0)
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = fmt.Sprintf("10.%d.%d.%d:9866", i/65536, i/256%256, i%256)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Heartbeat(t0.Add(time.Duration(i)), ids[i%len(ids)])
		i++
	}
}

// TestDataNodesRefresh: Refresh changes a known node as Heartbeat and
// SetHTTPAddress do, and leaves an unknown one unknown.
func TestDataNodesRefresh(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	d := NewDataNodes(time.Minute, 1)
	if revived, known := d.Refresh(t0, "a:1", "a:2"); revived || known || d.Len() != 0 {
		t.Fatalf("unknown node: revived %v, known %v, %d nodes", revived, known, d.Len())
	}
	d.Heartbeat(t0, "a:1")
	f := func(at time.Time, addr string, wantRevived bool, wantLast time.Time) {
		t.Helper()
		revived, known := d.Refresh(at, "a:1", addr)
		got := d.List(at)
		want := []DataNode{{Node: "a:1", State: Live, LastHeartbeat: wantLast, HTTPAddress: addr}}
		if revived != wantRevived || !known || !reflect.DeepEqual(got, want) {
			t.Fatalf("Refresh at %v: revived %v, known %v, table %v; want revived %v, %v", at, revived, known, got, wantRevived, want)
		}
	}
	f(t0.Add(time.Second), "a:2", false, t0.Add(time.Second))
	f(t0, "", false, t0.Add(time.Second)) // late: last stays, the address goes
	f(t0.Add(2*time.Minute), "a:3", true, t0.Add(2*time.Minute))
	if died := d.Check(t0.Add(4 * time.Minute)); !slices.Equal(died, []string{"a:1"}) {
		t.Fatalf("Check = %v", died)
	}
	d.Refresh(t0.Add(5*time.Minute), "a:1", "")
	if died := d.Check(t0.Add(7 * time.Minute)); !slices.Equal(died, []string{"a:1"}) {
		t.Fatalf("Check after a refresh = %v, want a:1 reported dead again", died)
	}
}

// List stays sorted and whole as nodes come, go and are restored: the
// sorted ids it walks are renewed at each change.
func TestDataNodesListFollowsChanges(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	tb := NewDataNodes(time.Minute, 0)
	ids := func() string {
		var out []string
		for _, d := range tb.List(now) {
			out = append(out, d.Node)
		}
		return strings.Join(out, " ")
	}
	f := func(want string) {
		t.Helper()
		if got := ids(); got != want {
			t.Fatalf("List = %q, want %q", got, want)
		}
	}
	tb.Heartbeat(now, "b:1")
	tb.Heartbeat(now, "d:1")
	f("b:1 d:1")
	tb.Heartbeat(now, "a:1")
	f("a:1 b:1 d:1")
	tb.Restore(now, "c:1", now)
	f("a:1 b:1 c:1 d:1")
	if page, more := tb.Page(now, "b:1", 1); len(page) != 1 || page[0].Node != "c:1" || !more {
		t.Fatalf("Page after b:1, 1 = %+v, %v", page, more)
	}
	if page, more := tb.Page(now, "bb:1", 5); len(page) != 2 || page[0].Node != "c:1" || more {
		t.Fatalf("Page after bb:1 = %+v, %v", page, more)
	}
	now = now.Add(time.Hour)
	tb.Heartbeat(now, "d:1")
	if gone := tb.Forget(now, 30*time.Minute); len(gone) != 3 || slices.Contains(gone, "d:1") {
		t.Fatalf("Forget dropped %v, want the 3 silent ones", gone)
	}
	if u := tb.Unknown(slices.Values([]string{"a:1", "d:1", "e:1"})); !slices.Equal(u, []string{"a:1", "e:1"}) {
		t.Fatalf("Unknown(a:1, d:1, e:1) = %v after Forget, want a:1 e:1", u)
	}
	if u := tb.Unknown(slices.Values([]string{"d:1"})); u != nil {
		t.Fatalf("Unknown(d:1) = %v, want nil", u)
	}
	f("d:1")
}
