package datanode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestBlockHeaderRoundTrip(t *testing.T) {
	f := func(h blockHeader) {
		t.Helper()
		b := h.appendTo(nil)
		got, n, err := readBlockHeader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("readBlockHeader(%+v): %v", h, err)
		}
		if n != len(b) {
			t.Fatalf("read %d bytes of %d", n, len(b))
		}
		if got.BlockID != h.BlockID || got.Packets != h.Packets || got.PacketBytes != h.PacketBytes ||
			got.From != h.From || !slices.Equal(got.Targets, h.Targets) {
			t.Fatalf("round trip of %+v gave %+v", h, got)
		}
	}
	f(blockHeader{BlockID: 1, Packets: 16, PacketBytes: 65536, From: "10.0.0.2:9866"})
	f(blockHeader{BlockID: 1 << 63, Packets: MaxProbePackets, PacketBytes: MaxProbePacketBytes, From: "[::1]:1",
		Targets: []string{"10.0.0.3:9866", "dn4.example.com:9866"}})
}

func TestParseBlockHeaderErrors(t *testing.T) {
	valid := blockHeader{BlockID: 7, Packets: 2, PacketBytes: 100, From: "a:1", Targets: []string{"b:2"}}
	f := func(h blockHeader, edit func([]byte) []byte, wantErr string) {
		t.Helper()
		b := h.appendTo(nil)
		if edit != nil {
			b = edit(b)
		}
		_, _, err := readBlockHeader(bytes.NewReader(b))
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("readBlockHeader = %v, want an error with %q", err, wantErr)
		}
	}
	with := func(mod func(*blockHeader)) blockHeader {
		h := valid
		h.Targets = slices.Clone(valid.Targets)
		mod(&h)
		return h
	}
	f(valid, func(b []byte) []byte { b[0] = 'X'; return b }, "bad magic")
	f(valid, func(b []byte) []byte { return b[:len(b)-1] }, "unexpected EOF")
	f(valid, func(b []byte) []byte { return b[:3] }, "unexpected EOF")
	f(valid, func(b []byte) []byte { b[4], b[5] = 0xff, 0xff; return b }, "at most 4096")
	f(valid, func(b []byte) []byte { // one byte too many in the body
		b = append(b, 0)
		b[5]++
		return b
	}, "1 bytes after")
	f(with(func(h *blockHeader) { h.Packets = 0 }), nil, "0 packets")
	f(with(func(h *blockHeader) { h.Packets = MaxProbePackets + 1 }), nil, "65537 packets")
	f(with(func(h *blockHeader) { h.PacketBytes = 0 }), nil, "packets of 0 bytes")
	f(with(func(h *blockHeader) { h.PacketBytes = MaxProbePacketBytes + 1 }), nil, "packets of 16777217 bytes")
	f(with(func(h *blockHeader) { h.From = "nohost" }), nil, "sender")
	f(with(func(h *blockHeader) { h.Targets = []string{"b:2", "c"} }), nil, "target 1")
	f(with(func(h *blockHeader) { h.Targets = []string{"b:2", "b:2"} }), nil, "named twice")
	f(with(func(h *blockHeader) {
		h.Targets = nil
		for i := range maxPipelineTargets + 1 {
			h.Targets = append(h.Targets, fmt.Sprintf("h%d:1", i))
		}
	}), nil, "9 targets")
}

func TestPacketHeader(t *testing.T) {
	var b [packetHeaderBytes]byte
	packetHeader{Seq: 3, Length: 100, CRC: 0xdeadbeef}.put(b[:])
	h, err := parsePacketHeader(b[:], 100)
	if err != nil || h != (packetHeader{Seq: 3, Length: 100, CRC: 0xdeadbeef}) {
		t.Fatalf("parsePacketHeader = %+v, %v", h, err)
	}
	f := func(b []byte, maxLength uint32, wantErr string) {
		t.Helper()
		_, err := parsePacketHeader(b, maxLength)
		if err == nil || !strings.Contains(err.Error(), wantErr) || !errors.Is(err, errProtocol) {
			t.Fatalf("parsePacketHeader = %v, want a protocol error with %q", err, wantErr)
		}
	}
	f(b[:], 99, "of 100 bytes, want 1 to 99")
	f(b[:11], 100, "of 11 bytes")
	packetHeader{Seq: 3}.put(b[:])
	f(b[:], 100, "of 0 bytes")
}

func TestAck(t *testing.T) {
	for s := range ackStatuses {
		var b [ackBytes]byte
		ack{Seq: 9, Status: s}.put(b[:])
		a, err := parseAck(b[:])
		if err != nil || a != (ack{Seq: 9, Status: s}) {
			t.Fatalf("parseAck(%v) = %+v, %v", s, a, err)
		}
	}
	if _, err := parseAck([]byte{0, 0, 0, 1, byte(ackStatuses)}); err == nil || !strings.Contains(err.Error(), "unknown status") {
		t.Fatalf("parseAck of an unknown status = %v", err)
	}
	if _, err := parseAck([]byte{0, 0, 0}); err == nil {
		t.Fatal("parseAck of 3 bytes did not fail")
	}
}

// FuzzBlockHeader: whatever the bytes, readBlockHeader returns an error or
// a header within the limits that encodes back to the same bytes.
func FuzzBlockHeader(f *testing.F) {
	f.Add(blockHeader{BlockID: 1, Packets: 16, PacketBytes: 65536, From: "10.0.0.2:9866",
		Targets: []string{"10.0.0.3:9866", "10.0.0.4:9866"}}.appendTo(nil))
	f.Add(blockHeader{Packets: 1, PacketBytes: 1, From: "[::1]:9"}.appendTo(nil))
	f.Add([]byte("SPB1\x00\x00"))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := readBlockHeader(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, errProtocol) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error of an unexpected kind: %v", err)
			}
			return
		}
		if h.Packets < 1 || h.Packets > MaxProbePackets || h.PacketBytes < 1 || h.PacketBytes > MaxProbePacketBytes ||
			len(h.Targets) > maxPipelineTargets {
			t.Fatalf("accepted a header beyond the limits: %+v", h)
		}
		if again := h.appendTo(nil); !bytes.Equal(again, b[:n]) {
			t.Fatalf("re-encoding %+v gave %x, read %x", h, again, b[:n])
		}
	})
}

// FuzzPacketHeader: a packet header parses to a length within the bound
// and encodes back to the same bytes, or is a protocol error.
func FuzzPacketHeader(f *testing.F) {
	var b [packetHeaderBytes]byte
	packetHeader{Seq: 1, Length: 65536, CRC: 42}.put(b[:])
	f.Add(b[:], uint32(65536))
	f.Add(make([]byte, 12), uint32(1))
	f.Fuzz(func(t *testing.T, b []byte, maxLength uint32) {
		h, err := parsePacketHeader(b, maxLength)
		if err != nil {
			if !errors.Is(err, errProtocol) {
				t.Fatalf("not a protocol error: %v", err)
			}
			return
		}
		if h.Length < 1 || h.Length > maxLength {
			t.Fatalf("length %d accepted with bound %d", h.Length, maxLength)
		}
		var again [packetHeaderBytes]byte
		h.put(again[:])
		if !bytes.Equal(again[:], b) {
			t.Fatalf("re-encoding gave %x, read %x", again, b)
		}
	})
}

// FuzzAck: an ack parses to a known status and encodes back, or is a
// protocol error.
func FuzzAck(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := parseAck(b)
		if err != nil {
			if !errors.Is(err, errProtocol) {
				t.Fatalf("not a protocol error: %v", err)
			}
			return
		}
		if a.Status >= ackStatuses {
			t.Fatalf("unknown status %d accepted", a.Status)
		}
		var again [ackBytes]byte
		a.put(again[:])
		if !bytes.Equal(again[:], b) {
			t.Fatalf("re-encoding gave %x, read %x", again, b)
		}
	})
}
