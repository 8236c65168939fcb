package datanode

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

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
