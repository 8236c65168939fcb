package datanode

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

var discard = slog.New(slog.DiscardHandler)

// testNode is a data port on 127.0.0.1 with its own metrics and counters.
type testNode struct {
	id       string
	metrics  *PeerMetrics
	counters *counters
	stop     func() // closes the port and waits for its connections
}

func startNode(t *testing.T, faultDelay, timeout time.Duration) *testNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &testNode{id: ln.Addr().String(), metrics: NewPeerMetrics(testMetricsConfig(0, 1)), counters: &counters{}}
	srv := newDataServer(n.id, n.metrics, n.counters, timeout, faultDelay, dialTCP, discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.serve(ctx, ln)
	}()
	var once sync.Once
	n.stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(n.stop)
	return n
}

func testProbeConfig(id string, timeout time.Duration) Config {
	cfg := DefaultConfig()
	cfg.ID = id
	cfg.ProbePackets = 8
	cfg.ProbePacketBytes = 1024
	cfg.ProbeTimeout = timeout
	return cfg
}

// latencies returns what m recorded: peer -> sample count and mean.
func latencies(m *PeerMetrics) map[string]struct {
	n      int64
	meanMs float64
} {
	out := map[string]struct {
		n      int64
		meanMs float64
	}{}
	for _, a := range m.Latencies(time.Now()) {
		out[a.Key] = struct {
			n      int64
			meanMs float64
		}{a.Count, a.Mean}
	}
	return out
}

// Reference: BlockReceiver.receivePacket / trackSendPacketToLastNodeInPipeline:
// only the next-to-last node of a pipeline records, under the last node's
// id, and the last node's delay before it acks is part of what it records.
func TestPipelineTimesLastHop(t *testing.T) {
	const delay = 20 * time.Millisecond
	f := func(pipelineLen int, writerRecords bool) {
		t.Helper()
		nodes := make([]*testNode, pipelineLen)
		for i := range nodes {
			d := time.Duration(0)
			if i == pipelineLen-1 {
				d = delay
			}
			nodes[i] = startNode(t, d, 5*time.Second)
		}
		var ids []string
		for _, n := range nodes {
			ids = append(ids, n.id)
		}
		wm, wc := NewPeerMetrics(testMetricsConfig(0, 1)), &counters{}
		p := newProber(testProbeConfig("127.0.0.1:1", 5*time.Second), ids, wm, wc, dialTCP, discard, 1)
		if err := p.probe(context.Background(), ids); err != nil {
			t.Fatalf("probe through %v: %v", ids, err)
		}
		for _, n := range nodes {
			n.stop()
		}
		last := ids[len(ids)-1]
		recorders := map[*PeerMetrics]string{wm: "writer"}
		for i, n := range nodes {
			recorders[n.metrics] = "node " + string(rune('0'+i))
		}
		want := nodes[max(0, len(nodes)-2)].metrics
		if writerRecords {
			want = wm
		}
		for m, name := range recorders {
			got := latencies(m)
			if m != want {
				if len(got) != 0 {
					t.Fatalf("%s recorded %v; only the next-to-last node may", name, got)
				}
				continue
			}
			l, ok := got[last]
			if len(got) != 1 || !ok || l.n != 8 || l.meanMs < float64(delay/time.Millisecond) {
				t.Fatalf("%s (next-to-last) recorded %v, want 8 samples of ≥ %v for %s", name, got, delay, last)
			}
		}
		if s := wc.snapshot(); s.ProbeBlocks != 1 || s.ProbeBlocksFailed != 0 || s.LatenciesRecorded != map[bool]int64{true: 8}[writerRecords] {
			t.Fatalf("writer counters %+v", s)
		}
		for i, n := range nodes {
			s := n.counters.snapshot()
			if s.RelayedBlocks != 1 || s.CorruptPackets+s.DroppedConnections+s.ProtocolErrors != 0 {
				t.Fatalf("node %d counters %+v", i, s)
			}
			// Every node reads the block's 8 packets of 12 + 1024 bytes.
			if s.ProbeBytesReceived < 8*(12+1024) {
				t.Fatalf("node %d read %d bytes, want at least %d", i, s.ProbeBytesReceived, 8*(12+1024))
			}
		}
	}
	f(1, true)
	f(2, false)
	f(3, false)
}
