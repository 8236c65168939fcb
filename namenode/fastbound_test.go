package namenode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// Admitted DataNodes whose heartbeats name, besides real DataNodes, 200
// made-up nodes each (new ones every time), cannot grow the fast path's
// model past slowpeer.max.peer.latencies pairs a reporter: the made-up
// ones are dropped and counted (the first logged), the real ones past
// the bound replace their reporter's oldest; its heap stays within
// MemoryBudget's part. Forgetting a DataNode, by an operator or after
// slowpeer.namenode.datanode.forget.after, frees its pairs.
func TestFastPathBoundedByDataNodes(t *testing.T) {
	const nodes, peers = 200, 16
	s, clock, logs := newTestServer(t, func(c *Config) { c.MaxDataNodes, c.MaxPeerLatencies = nodes, peers })
	name := func(i int) string { return fmt.Sprintf("10.3.%d.%d:9866", i/250, 1+i%250) }
	for i := range nodes {
		mustHeartbeat(t, s, reports.Heartbeat{Node: name(i)})
	}
	if w := do(t, s, "POST", HeartbeatPath, `{"node":"10.9.9.9:9866"}`); w.Code != http.StatusTooManyRequests {
		t.Fatalf("a DataNode past %s: %d", MaxDataNodesKey, w.Code)
	}
	logCap := func() int { logs.mu.Lock(); defer logs.mu.Unlock(); return logs.buf.Cap() }
	heapBefore, logBefore := heapInUse(), logCap()
	madeUp := 0
	for round := range 10 {
		clock.Advance(500 * time.Millisecond)
		for i := range nodes {
			hb := reports.Heartbeat{Node: name(i)}
			for j := range 200 {
				hb.RecentLatencies = append(hb.RecentLatencies, reports.RecentLatency{
					Node: fmt.Sprintf("made-up-%d-%d-%d.example:9866", round, i, j), LatencyMs: 1, Blocks: 1})
			}
			for j := 1; j <= 40; j++ { // real ones, more than the bound
				hb.RecentLatencies = append(hb.RecentLatencies, reports.RecentLatency{
					Node: name((i + round*40 + j) % nodes), LatencyMs: 1, Blocks: 1})
			}
			madeUp += 200
			body, err := json.Marshal(hb)
			if err != nil {
				t.Fatal(err)
			}
			if w := do(t, s, "POST", HeartbeatPath, string(body)); w.Code != http.StatusOK {
				t.Fatalf("heartbeat: %d %s", w.Code, w.Body)
			}
		}
		s.StepSuspects(clock.Now())
		if pairs, _ := s.fast.det.Pairs(); pairs > nodes*peers {
			t.Fatalf("round %d: %d pairs, more than %d DataNodes × %d", round, pairs, nodes, peers)
		}
	}
	logGrowth := int64(logCap() - logBefore)
	model := int64(nodes)*suspect.NodeBytes + int64(nodes*peers)*suspect.PairBytes
	if grew := int64(heapInUse()) - int64(heapBefore) - logGrowth; grew > model {
		t.Errorf("the heap grew by %d bytes besides the log, more than the model's budget, %d", grew, model)
	}
	if pairs, _ := s.fast.det.Pairs(); pairs != nodes*peers {
		t.Errorf("%d pairs, want every DataNode's latest %d: %d", pairs, peers, nodes*peers)
	}
	for _, want := range []string{
		fmt.Sprintf("slowpeer_suspect_pairs %d", nodes*peers),
		fmt.Sprintf("slowpeer_suspect_latencies_dropped_total %d", madeUp),
		// 400 real ones each, but itself twice (skipped), past the first 16.
		fmt.Sprintf("slowpeer_suspect_pairs_replaced_total %d", nodes*(10*40-2-peers)),
	} {
		if got := metricLine(t, s, strings.Fields(want)[0]+" "); got != want {
			t.Errorf("metric %q, want %q", got, want)
		}
	}
	for _, said := range []string{"not DataNodes of the table are dropped", "named more peers than " + MaxPeerLatenciesKey} {
		if n := strings.Count(logs.String(), said); n != 1 {
			t.Errorf("%q logged %d times, want once", said, n)
		}
	}

	if _, err := s.ForgetDataNode(clock.Now(), name(0)); err != nil {
		t.Fatal(err)
	}
	pairs, _ := s.fast.det.Pairs()
	if pairs >= nodes*peers-peers {
		t.Errorf("after forgetting a DataNode: %d pairs, want fewer than %d", pairs, nodes*peers-peers)
	}
	clock.Advance(s.cfg.DataNodeForgetAfter + time.Minute) // no StepSuspects meanwhile
	if res := s.Step(clock.Now()); res.Forgotten != nodes-1 {
		t.Fatalf("Step forgot %d DataNodes, want %d", res.Forgotten, nodes-1)
	}
	if pairs, _ := s.fast.det.Pairs(); pairs != 0 {
		t.Errorf("every DataNode forgotten: %d pairs left", pairs)
	}
}
