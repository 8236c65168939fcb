package datanode

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

func TestRecentLatencies(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	blocks := []Block{
		{Peer: "a:1", End: t0, Median: ms(0.1)},
		{Peer: "b:1", End: t0.Add(time.Second), Median: ms(2)},
		{Peer: "a:1", End: t0.Add(2 * time.Second), Median: ms(0.3)},
		{Peer: "a:1", End: t0.Add(3 * time.Second), Median: ms(0.123456), Round: 4},
		{Peer: "a:1", End: t0.Add(4 * time.Second), Median: ms(0.2)},
		{Peer: "bad id", End: t0, Median: ms(1)},
	}
	rs, dropped := RecentLatencies(blocks)
	want := []reports.RecentLatency{
		{Node: "b:1", LatencyMs: 2, Blocks: 1},
		{Node: "a:1", LatencyMs: 0.1235, Blocks: 1, Round: 4},
		{Node: "a:1", LatencyMs: 0.2, Blocks: 3},
	}
	if !reflect.DeepEqual(rs, want) || dropped != 0 {
		t.Fatalf("RecentLatencies = %+v, %d; want %+v", rs, dropped, want)
	}
	if rs, _ := RecentLatencies(nil); len(rs) != 0 {
		t.Fatalf("RecentLatencies(nil) = %+v", rs)
	}
}

// Of more than 256 peers, the oldest go and their blocks are counted.
func TestRecentLatenciesCap(t *testing.T) {
	var blocks []Block
	for i := range reports.MaxRecentLatencies + 10 {
		for range 2 {
			blocks = append(blocks, Block{Peer: fmt.Sprintf("10.0.%d.%d:9866", i/200, i%200), Median: time.Millisecond})
		}
	}
	rs, dropped := RecentLatencies(blocks)
	if len(rs) != reports.MaxRecentLatencies || dropped != 20 || rs[0].Node != "10.0.0.10:9866" {
		t.Fatalf("%d entries from %s, %d blocks dropped; want 256 from 10.0.0.10:9866, 20", len(rs), rs[0].Node, dropped)
	}
	h := reports.Heartbeat{Node: "10.9.9.9:9866", RecentLatencies: rs}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
}

// Each service's heartbeats carry every block once it acknowledged them:
// a service that failed gets them again, one that joins later gets only
// what ended after, one that does not answer holds at most the log's
// bound.
func TestRecentLogCursors(t *testing.T) {
	dropped := 0
	l := newRecentLog(func(n int) { dropped += n })
	a, b := &actor{}, &actor{}
	block := func(peer string) { l.add(Block{Peer: peer, Median: time.Millisecond}) }
	nodes := func(rs []reports.RecentLatency) (out []string) {
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s×%d", r.Node, r.Blocks))
		}
		return out
	}
	f := func(ac *actor, deliver bool, want ...string) {
		t.Helper()
		rs, end, _ := l.pending(ac)
		if got := nodes(rs); !reflect.DeepEqual(got, want) {
			t.Fatalf("pending = %v, want %v", got, want)
		}
		if deliver {
			l.carried(ac, end)
		}
	}
	block("x:1") // nobody to carry it
	l.join(a)
	block("p:1")
	block("q:1")
	l.join(b)
	block("p:1")
	f(a, false, "q:1×1", "p:1×2") // failed: stays
	f(a, true, "q:1×1", "p:1×2")
	f(a, true)
	f(b, true, "p:1×1")
	block("r:1")
	f(b, true, "r:1×1")
	f(a, true, "r:1×1")
	if len(l.blocks) != 0 {
		t.Fatalf("%d blocks held after every service had them", len(l.blocks))
	}

	// b does not answer: the log holds at most maxRecentLogBlocks for it.
	for range maxRecentLogBlocks + 5 {
		block("s:1")
		f(a, true, "s:1×1")
	}
	if len(l.blocks) != maxRecentLogBlocks || dropped != 5 {
		t.Fatalf("%d blocks held, %d dropped; want %d, 5", len(l.blocks), dropped, maxRecentLogBlocks)
	}
	rs, _, _ := l.pending(b)
	if len(rs) != 1 || rs[0].Blocks != reports.MaxRecentBlocks {
		t.Fatalf("b's pending = %+v, want one entry of %d blocks", rs, reports.MaxRecentBlocks)
	}
	l.leave(b)
	if len(l.blocks) != 0 {
		t.Fatalf("%d blocks held after b left", len(l.blocks))
	}
}
