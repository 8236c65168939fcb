package datanode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/slowpeer/slowpeer/reports"
)

// The probe protocol, all integers big-endian (network order, as HDFS's
// data transfer protocol). A probe connection carries one block:
//
//	block header  "SPB1" | body length uint16 | body
//	  body        block id uint64 | packets uint32 | packet bytes uint32 |
//	              sender id (uint16 length + bytes) |
//	              target count uint8 | targets (uint16 length + bytes each)
//	then, for seq = 0 .. packets−1, stop and wait:
//	  packet      seq uint32 | payload length uint32 | CRC32C uint32 | payload
//	  ack (back)  seq uint32 | status uint8
//
// The targets are the nodes after the receiver, in pipeline order: the
// receiver forwards the block to the first of them with the rest, as HDFS's
// writeBlock passes the remaining targets down the pipeline. A packet
// carries one CRC32C of its whole payload (HDFS: one per 512-byte chunk,
// dfs.bytes-per-checksum). Each receiver verifies every packet's checksum
// (HDFS verifies on the last node only);
// an ack is sent upstream only after the downstream node acknowledged the
// same packet, as HDFS's PacketResponder does.
const (
	blockMagic          = "SPB1"
	blockPrefixBytes    = len(blockMagic) + 2
	maxBlockHeaderBytes = 4096
	maxPipelineTargets  = 8
	packetHeaderBytes   = 12
	ackBytes            = 5
)

// castagnoli is HDFS's default checksum, CRC32C (dfs.checksum.type).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// blockHeader opens a probe connection.
type blockHeader struct {
	BlockID     uint64
	Packets     uint32   // packets in the block, 1..MaxProbePackets
	PacketBytes uint32   // the largest payload, 1..MaxProbePacketBytes
	From        string   // the sender's node id
	Targets     []string // the nodes after the receiver
}

// appendTo appends the encoded header to b.
func (h blockHeader) appendTo(b []byte) []byte {
	b = append(b, blockMagic...)
	lenAt := len(b)
	b = append(b, 0, 0)
	b = binary.BigEndian.AppendUint64(b, h.BlockID)
	b = binary.BigEndian.AppendUint32(b, h.Packets)
	b = binary.BigEndian.AppendUint32(b, h.PacketBytes)
	b = appendString(b, h.From)
	b = append(b, byte(len(h.Targets)))
	for _, t := range h.Targets {
		b = appendString(b, t)
	}
	binary.BigEndian.PutUint16(b[lenAt:], uint16(len(b)-lenAt-2))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// errProtocol marks a peer that does not speak the probe protocol.
var errProtocol = errors.New("probe protocol")

// readBlockHeader reads and checks a block header from r.
func readBlockHeader(r io.Reader) (blockHeader, int, error) {
	var prefix [blockPrefixBytes]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return blockHeader{}, 0, fmt.Errorf("read block header: %w", err)
	}
	if string(prefix[:len(blockMagic)]) != blockMagic {
		return blockHeader{}, 0, fmt.Errorf("%w: bad magic %q", errProtocol, prefix[:len(blockMagic)])
	}
	n := int(binary.BigEndian.Uint16(prefix[len(blockMagic):]))
	if n > maxBlockHeaderBytes {
		return blockHeader{}, 0, fmt.Errorf("%w: block header of %d bytes, at most %d", errProtocol, n, maxBlockHeaderBytes)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return blockHeader{}, 0, fmt.Errorf("read block header: %w", err)
	}
	h, err := parseBlockHeader(body)
	return h, blockPrefixBytes + n, err
}

// parseBlockHeader decodes and checks the body of a block header: counts
// and sizes within the limits, valid and distinct node ids, nothing left
// over.
func parseBlockHeader(body []byte) (blockHeader, error) {
	var h blockHeader
	d := decoder{b: body}
	h.BlockID = d.uint64()
	h.Packets = d.uint32()
	h.PacketBytes = d.uint32()
	h.From = d.string()
	n := int(d.uint8())
	if d.err == nil && n > maxPipelineTargets {
		return blockHeader{}, fmt.Errorf("%w: %d targets, at most %d", errProtocol, n, maxPipelineTargets)
	}
	for range n {
		if t := d.string(); d.err == nil {
			h.Targets = append(h.Targets, t)
		}
	}
	switch {
	case d.err != nil:
		return blockHeader{}, fmt.Errorf("%w: block header: %v", errProtocol, d.err)
	case len(d.b) != 0:
		return blockHeader{}, fmt.Errorf("%w: %d bytes after the block header", errProtocol, len(d.b))
	case h.Packets < 1 || h.Packets > MaxProbePackets:
		return blockHeader{}, fmt.Errorf("%w: %d packets, want 1 to %d", errProtocol, h.Packets, MaxProbePackets)
	case h.PacketBytes < 1 || h.PacketBytes > MaxProbePacketBytes:
		return blockHeader{}, fmt.Errorf("%w: packets of %d bytes, want 1 to %d", errProtocol, h.PacketBytes, MaxProbePacketBytes)
	}
	if err := reports.ValidateNode(h.From); err != nil {
		return blockHeader{}, fmt.Errorf("%w: sender: %v", errProtocol, err)
	}
	for i, t := range h.Targets {
		if err := reports.ValidateNode(t); err != nil {
			return blockHeader{}, fmt.Errorf("%w: target %d: %v", errProtocol, i, err)
		}
		for _, u := range h.Targets[:i] {
			if u == t {
				return blockHeader{}, fmt.Errorf("%w: target %q named twice", errProtocol, t)
			}
		}
	}
	return h, nil
}

// decoder reads big-endian fields from b; after the first short read
// every read returns zero and err stays set.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) uint8() uint8 {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) uint32() uint32 {
	if p := d.take(4); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) uint64() uint64 {
	if p := d.take(8); p != nil {
		return binary.BigEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) string() string {
	n := 0
	if p := d.take(2); p != nil {
		n = int(binary.BigEndian.Uint16(p))
	}
	return string(d.take(n))
}

// packetHeader precedes each packet's payload.
type packetHeader struct {
	Seq    uint32
	Length uint32 // payload bytes
	CRC    uint32 // CRC32C of the payload
}

func (h packetHeader) put(b []byte) {
	binary.BigEndian.PutUint32(b[0:], h.Seq)
	binary.BigEndian.PutUint32(b[4:], h.Length)
	binary.BigEndian.PutUint32(b[8:], h.CRC)
}

// parsePacketHeader decodes the packetHeaderBytes bytes of b and checks
// that the payload length is in [1, maxLength].
func parsePacketHeader(b []byte, maxLength uint32) (packetHeader, error) {
	if len(b) != packetHeaderBytes {
		return packetHeader{}, fmt.Errorf("%w: packet header of %d bytes, want %d", errProtocol, len(b), packetHeaderBytes)
	}
	h := packetHeader{
		Seq:    binary.BigEndian.Uint32(b[0:]),
		Length: binary.BigEndian.Uint32(b[4:]),
		CRC:    binary.BigEndian.Uint32(b[8:]),
	}
	if h.Length < 1 || h.Length > maxLength {
		return packetHeader{}, fmt.Errorf("%w: packet %d of %d bytes, want 1 to %d", errProtocol, h.Seq, h.Length, maxLength)
	}
	return h, nil
}

// ackStatus is a node's verdict on one packet, for itself and every node
// after it.
type ackStatus uint8

const (
	// ackOK: the packet reached every node of the rest of the pipeline
	// intact.
	ackOK ackStatus = iota
	// ackChecksum: a node downstream found the checksum wrong (HDFS's
	// ERROR_CHECKSUM).
	ackChecksum
	// ackDownstream: a node downstream could not forward the packet or
	// did not get its acknowledgement (HDFS's ERROR).
	ackDownstream
	ackStatuses
)

func (s ackStatus) String() string {
	switch s {
	case ackOK:
		return "ok"
	case ackChecksum:
		return "checksum error downstream"
	case ackDownstream:
		return "downstream failure"
	}
	return fmt.Sprintf("status %d", uint8(s))
}

// ack acknowledges one packet upstream.
type ack struct {
	Seq    uint32
	Status ackStatus
}

func (a ack) put(b []byte) {
	binary.BigEndian.PutUint32(b, a.Seq)
	b[4] = byte(a.Status)
}

// parseAck decodes the ackBytes bytes of b.
func parseAck(b []byte) (ack, error) {
	if len(b) != ackBytes {
		return ack{}, fmt.Errorf("%w: ack of %d bytes, want %d", errProtocol, len(b), ackBytes)
	}
	a := ack{Seq: binary.BigEndian.Uint32(b), Status: ackStatus(b[4])}
	if a.Status >= ackStatuses {
		return ack{}, fmt.Errorf("%w: ack of packet %d has unknown status %d", errProtocol, a.Seq, b[4])
	}
	return a, nil
}

// crc32c returns the CRC32C of b.
func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
