package datanode

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
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

func TestChoosePipeline(t *testing.T) {
	rng := newProber(testProbeConfig("a:1", time.Second), nil, nil, nil, nil, discard, 3).rng
	f := func(peers []string, wantLens []int) {
		t.Helper()
		lens := map[int]bool{}
		for range 200 {
			p := choosePipeline(rng, peers)
			lens[len(p)] = true
			seen := map[string]bool{}
			for _, x := range p {
				if seen[x] || !slices.Contains(peers, x) {
					t.Fatalf("pipeline %v of %v repeats a node or names a stranger", p, peers)
				}
				seen[x] = true
			}
		}
		var got []int
		for l := range lens {
			got = append(got, l)
		}
		slices.Sort(got)
		if !slices.Equal(got, wantLens) {
			t.Fatalf("pipeline lengths %v from %v, want %v", got, peers, wantLens)
		}
	}
	f(nil, []int{0})
	f([]string{"a:1"}, []int{1})
	f([]string{"a:1", "b:1"}, []int{2})
	f([]string{"a:1", "b:1", "c:1", "d:1", "e:1"}, []int{2, 3})
}

// Every node must be next-to-last toward every other now and then.
func TestChoosePipelineCoversPairs(t *testing.T) {
	rng := newProber(testProbeConfig("a:1", time.Second), nil, nil, nil, nil, discard, 5).rng
	peers := []string{"a:1", "b:1", "c:1", "d:1", "e:1"}
	pairs := map[[2]string]bool{}
	for range 2000 {
		p := choosePipeline(rng, peers)
		pairs[[2]string{p[len(p)-2], p[len(p)-1]}] = true
	}
	if len(pairs) != len(peers)*(len(peers)-1) {
		t.Fatalf("%d (next-to-last, last) pairs seen, want %d", len(pairs), len(peers)*(len(peers)-1))
	}
}

func TestProbePeers(t *testing.T) {
	if got := probePeers("b:1", []string{"a:1", "b:1", "c:1"}); !slices.Equal(got, []string{"a:1", "c:1"}) {
		t.Fatalf("probePeers = %v", got)
	}
}

// corruptingProxy forwards one connection to target, flipping the byte at
// offset of the stream toward target.
func corruptingProxy(t *testing.T, target string, offset int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		defer in.Close()
		out, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		defer out.Close()
		wg.Go(func() { io.Copy(in, out); in.Close() })
		buf := make([]byte, 4096)
		pos := 0
		for {
			n, err := in.Read(buf)
			if i := offset - pos; i >= 0 && i < n {
				buf[i] ^= 0x40
			}
			pos += n
			if _, werr := out.Write(buf[:n]); werr != nil || err != nil {
				out.Close()
				return
			}
		}
	})
	return ln.Addr().String()
}

// A packet whose checksum fails is counted by the node that reads it,
// acknowledged with a checksum error, and never timed; the packets before
// it were.
func TestCorruptPacketNotTimed(t *testing.T) {
	a, b := startNode(t, 0, 5*time.Second), startNode(t, 0, 5*time.Second)
	// A forwards to B through the proxy; A is next-to-last and names the
	// last node by the proxy's address. Corrupt packet 3's payload.
	hdrLen := len(blockHeader{Packets: 8, PacketBytes: 1024, From: a.id}.appendTo(nil))
	proxy := corruptingProxy(t, b.id, hdrLen+3*(12+1024)+12+100)
	wc := &counters{}
	p := newProber(testProbeConfig("127.0.0.1:1", 5*time.Second), nil, NewPeerMetrics(testMetricsConfig(0, 1)), wc, dialTCP, discard, 1)
	err := p.probe(context.Background(), []string{a.id, proxy})
	if !errors.Is(err, errDownstream) {
		t.Fatalf("probe = %v, want a downstream failure", err)
	}
	a.stop()
	b.stop()
	if got := latencies(a.metrics); len(got) != 1 || got[proxy].n != 3 {
		t.Fatalf("A recorded %v, want the 3 packets before the corrupt one", got)
	}
	if s := b.counters.snapshot(); s.CorruptPackets != 1 || s.RelayedBlocks != 0 {
		t.Fatalf("B counters %+v, want one corrupt packet", s)
	}
	if s := a.counters.snapshot(); s.CorruptPackets != 0 || s.RelayedBlocks != 0 || s.LatenciesRecorded != 3 {
		t.Fatalf("A counters %+v", s)
	}
	if s := wc.snapshot(); s.ProbeBlocksFailed != 1 || s.ProbeBlocks != 0 {
		t.Fatalf("writer counters %+v", s)
	}
}

// A downstream node that accepts and closes at once, or never answers,
// fails the block on every node without a latency, within the timeouts.
func TestBrokenDownstream(t *testing.T) {
	f := func(name string, behave func(net.Conn)) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		defer func() { ln.Close(); wg.Wait() }()
		wg.Go(func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			behave(c)
			c.Close()
		})
		a := startNode(t, 0, 200*time.Millisecond)
		wc := &counters{}
		p := newProber(testProbeConfig("127.0.0.1:1", 200*time.Millisecond), nil, NewPeerMetrics(testMetricsConfig(0, 1)), wc, dialTCP, discard, 1)
		err = p.probe(context.Background(), []string{a.id, ln.Addr().String()})
		if !errors.Is(err, errDownstream) {
			t.Fatalf("%s: probe = %v, want a downstream failure acknowledged by A", name, err)
		}
		a.stop()
		if got := latencies(a.metrics); len(got) != 0 {
			t.Fatalf("%s: A recorded %v", name, got)
		}
		if s := a.counters.snapshot(); s.DroppedConnections != 1 {
			t.Fatalf("%s: A counters %+v, want one dropped connection", name, s)
		}
		if s := wc.snapshot(); s.ProbeBlocksFailed != 1 || s.DroppedConnections != 0 {
			t.Fatalf("%s: writer counters %+v", name, s)
		}
	}
	f("closes", func(net.Conn) {})
	f("hangs", func(c net.Conn) {
		// Read everything, never acknowledge, until A gives up.
		io.Copy(io.Discard, c)
	})
}

// The writer's own first hop refusing or hanging fails the block, counted
// as a dropped connection.
func TestBrokenFirstHop(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hung := ln.Addr().String() // accepts (the kernel's backlog) and never reads an ack back
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	for _, target := range []string{hung, refused} {
		wc := &counters{}
		p := newProber(testProbeConfig("127.0.0.1:1", 100*time.Millisecond), nil, NewPeerMetrics(testMetricsConfig(0, 1)), wc, dialTCP, discard, 1)
		err := p.probe(context.Background(), []string{target})
		if !errors.Is(err, errDropped) {
			t.Fatalf("probe to %s = %v, want a dropped connection", target, err)
		}
		if s := wc.snapshot(); s.DroppedConnections != 1 || s.ProbeBlocksFailed != 1 || s.LatenciesRecorded != 0 {
			t.Fatalf("writer counters %+v", s)
		}
	}
}

// What is not the probe protocol is a protocol error, and so is a packet
// out of sequence.
func TestProtocolErrors(t *testing.T) {
	f := func(send []byte, wantProtocol, wantDropped int64) {
		t.Helper()
		a := startNode(t, 0, time.Second)
		c, err := net.Dial("tcp", a.id)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(send)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, c) // until A closes
		c.Close()
		a.stop()
		if s := a.counters.snapshot(); s.ProtocolErrors != wantProtocol || s.DroppedConnections != wantDropped {
			t.Fatalf("counters %+v, want %d protocol errors and %d dropped", s, wantProtocol, wantDropped)
		}
	}
	f([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 1, 0)
	hdr := blockHeader{Packets: 2, PacketBytes: 4, From: "127.0.0.1:1"}.appendTo(nil)
	pkt := make([]byte, 12+4)
	packetHeader{Seq: 1, Length: 4, CRC: 0}.put(pkt) // seq 1 where 0 is due
	f(append(slices.Clone(hdr), pkt...), 1, 0)
	f(hdr, 0, 1) // the writer goes away after the header
}

// More than MaxInboundProbes connections at once: the extra ones are
// closed at once and counted.
func TestInboundBound(t *testing.T) {
	a := startNode(t, 0, 5*time.Second)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Each of these sends a full block header, so that A is surely serving
	// it (it has answered nothing, but it dialled nothing either: no
	// targets); they then hang on the first packet.
	hdr := blockHeader{Packets: 1, PacketBytes: 4, From: "127.0.0.1:1"}.appendTo(nil)
	for range MaxInboundProbes {
		c, err := net.Dial("tcp", a.id)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(hdr)
		conns = append(conns, c)
	}
	// The next connection is closed without a byte, however long it waits.
	extra, err := net.Dial("tcp", a.id)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := extra.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the extra connection read %d bytes, %v; want EOF", n, err)
	}
	if s := a.counters.snapshot(); s.RefusedConnections != 1 {
		t.Fatalf("counters %+v, want one refused connection", s)
	}
}

// FuzzRelay feeds arbitrary bytes to a data port's connection handler:
// it never panics or hangs, never dials (every dial fails here) and never
// records a latency.
func FuzzRelay(f *testing.F) {
	hdr := blockHeader{BlockID: 1, Packets: 2, PacketBytes: 8, From: "10.0.0.1:1"}.appendTo(nil)
	pkt := func(seq uint32, payload string) []byte {
		b := make([]byte, 12)
		packetHeader{Seq: seq, Length: uint32(len(payload)), CRC: crc32c([]byte(payload))}.put(b)
		return append(b, payload...)
	}
	f.Add(slices.Concat(hdr, pkt(0, "abcdefgh"), pkt(1, "xy")))
	f.Add(slices.Concat(hdr, pkt(0, "abcdefgh"), pkt(0, "xy")))
	f.Add(blockHeader{Packets: 1, PacketBytes: 3, From: "a:1", Targets: []string{"b:2"}}.appendTo(nil))
	f.Add([]byte("SPB1"))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, c := NewPeerMetrics(testMetricsConfig(0, 1)), &counters{}
		noDial := func(context.Context, string) (net.Conn, error) { return nil, errors.New("no network in fuzzing") }
		s := newDataServer("10.0.0.9:9", m, c, time.Second, 0, noDial, discard)
		server, client := net.Pipe()
		var wg sync.WaitGroup
		wg.Go(func() { io.Copy(io.Discard, client) }) // the acks
		wg.Go(func() {
			client.Write(in)
			client.Close()
		})
		s.handle(context.Background(), server)
		client.Close()
		wg.Wait()
		if got := latencies(m); len(got) != 0 {
			t.Fatalf("recorded %v without a downstream node", got)
		}
	})
}
