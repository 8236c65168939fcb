package datanode

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"time"
)

// The kinds of failure of a probe connection, each counted in Stats.
var (
	// errCorrupt: a packet's checksum does not match its payload.
	errCorrupt = errors.New("corrupt packet")
	// errDropped: a connection failed (refused, reset, timed out, closed
	// early).
	errDropped = errors.New("connection dropped")
	// errDownstream: a node further down acknowledged with an error, which
	// that node has counted and logged.
	errDownstream = errors.New("pipeline failed downstream")
)

// dialFunc opens a connection to a node's data port.
type dialFunc func(ctx context.Context, addr string) (net.Conn, error)

func dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// relay receives one block from up, forwarding it down the pipeline the
// block header names. It returns the header (for logs) and nil once the
// last packet is acknowledged upstream.
func (s *dataServer) relay(ctx context.Context, up net.Conn) (blockHeader, error) {
	up.SetReadDeadline(time.Now().Add(s.timeout))
	hdr, n, err := readBlockHeader(up)
	s.counters.probeBytesReceived.Add(int64(n))
	if err != nil {
		return hdr, dropped(err)
	}
	var down net.Conn
	var downErr error // the downstream node failed; ack errors from now on
	if len(hdr.Targets) > 0 {
		down, downErr = s.openMirror(ctx, hdr)
		if down != nil {
			defer down.Close()
			stop := context.AfterFunc(ctx, func() { down.Close() })
			defer stop()
		}
	}
	// waitAck is how long the next node may take to acknowledge a packet:
	// one timeout for each node it waits for, so that a node that hangs
	// is found by its own upstream first (HDFS extends its read timeout by
	// the pipeline's length in the same way).
	waitAck := s.timeout * time.Duration(len(hdr.Targets))
	// The buffer grows with the packets that arrive, not with what the
	// header announces, so a header alone costs no memory.
	var buf []byte
	var ackBuf [ackBytes]byte
	var times *blockTimes // the next-to-last node times the last
	if len(hdr.Targets) == 1 {
		times = timeBlock(s.metrics, s.counters, hdr.Targets[0])
		times.recent = s.recent
		defer times.flush()
	}
	var delay *time.Timer
	for seq := range hdr.Packets {
		pkt, err := s.readPacket(up, &buf, seq, hdr.PacketBytes)
		if errors.Is(err, errCorrupt) {
			// As HDFS's ERROR_CHECKSUM: tell upstream, then give up.
			s.writeAck(up, ack{seq, ackChecksum})
		}
		if err != nil {
			return hdr, fmt.Errorf("packet %d from %s: %w", seq, hdr.From, err)
		}
		status := ackOK
		if down != nil && downErr == nil {
			var a ack
			a, downErr = s.mirror(down, pkt, seq, waitAck, hdr.Targets, times)
			status = a.Status
		}
		if downErr != nil {
			if errors.Is(downErr, errDropped) && ctx.Err() == nil {
				peerFailed(s.metrics, s.counters, s.log, hdr.Targets[0])
			}
			s.writeAck(up, ack{seq, ackDownstream})
			return hdr, fmt.Errorf("packet %d to %s: %w", seq, hdr.Targets[0], downErr)
		}
		if status != ackOK {
			s.writeAck(up, ack{seq, status})
			return hdr, fmt.Errorf("%w: packet %d: %s", errDownstream, seq, status)
		}
		if s.faultDelay > 0 {
			if delay == nil {
				delay = time.NewTimer(s.faultDelay)
				defer delay.Stop()
			} else {
				delay.Reset(s.faultDelay)
			}
			select {
			case <-ctx.Done():
				return hdr, ctx.Err()
			case <-delay.C:
			}
		}
		ack{seq, ackOK}.put(ackBuf[:])
		up.SetWriteDeadline(time.Now().Add(s.timeout))
		if _, err := up.Write(ackBuf[:]); err != nil {
			return hdr, fmt.Errorf("ack packet %d to %s: %w", seq, hdr.From, dropped(err))
		}
		s.counters.probeBytesSent.Add(ackBytes)
	}
	return hdr, nil
}

// openMirror dials the first target and sends it the block header with
// the rest of the targets.
func (s *dataServer) openMirror(ctx context.Context, hdr blockHeader) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, s.timeout)
	down, err := s.dial(dctx, hdr.Targets[0])
	cancel()
	if err != nil {
		return nil, dropped(err)
	}
	next := blockHeader{BlockID: hdr.BlockID, Packets: hdr.Packets, PacketBytes: hdr.PacketBytes,
		From: s.id, Targets: hdr.Targets[1:]}
	b := next.appendTo(nil)
	down.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := down.Write(b); err != nil {
		return down, dropped(err)
	}
	s.counters.probeBytesSent.Add(int64(len(b)))
	return down, nil
}

// readPacket reads packet seq into *buf, growing it as needed, and returns
// the packet, header and payload, its payload checked against its CRC32C.
func (s *dataServer) readPacket(up net.Conn, buf *[]byte, seq, maxLength uint32) ([]byte, error) {
	up.SetReadDeadline(time.Now().Add(s.timeout))
	var hb [packetHeaderBytes]byte
	if _, err := io.ReadFull(up, hb[:]); err != nil {
		return nil, dropped(err)
	}
	h, err := parsePacketHeader(hb[:], maxLength)
	if err != nil {
		return nil, err
	}
	if h.Seq != seq {
		return nil, fmt.Errorf("%w: packet %d where %d was due", errProtocol, h.Seq, seq)
	}
	n := packetHeaderBytes + int(h.Length)
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	pkt := (*buf)[:n]
	copy(pkt, hb[:])
	payload := pkt[packetHeaderBytes:]
	if _, err := io.ReadFull(up, payload); err != nil {
		return nil, dropped(err)
	}
	s.counters.probeBytesReceived.Add(int64(n))
	if got := crc32.Checksum(payload, castagnoli); got != h.CRC {
		return nil, fmt.Errorf("%w: CRC32C %08x, header says %08x", errCorrupt, got, h.CRC)
	}
	return pkt, nil
}

// mirror forwards one packet downstream and waits for its ack. As the
// next-to-last node (one target left) it adds the time from the start of
// the write to the ack to times, recorded under the last node's id when
// the block ends (blocktimes.go); a packet that failed is never recorded.
//
// Reference: BlockReceiver.receivePacket and trackSendPacketToLastNodeInPipeline,
// which time only the write and flush.
func (s *dataServer) mirror(down net.Conn, pkt []byte, seq uint32, waitAck time.Duration, targets []string, times *blockTimes) (ack, error) {
	start := time.Now()
	down.SetWriteDeadline(start.Add(s.timeout))
	if _, err := down.Write(pkt); err != nil {
		return ack{}, dropped(err)
	}
	s.counters.probeBytesSent.Add(int64(len(pkt)))
	a, err := readAck(down, start.Add(waitAck), seq)
	if err != nil {
		return ack{}, err
	}
	s.counters.probeBytesReceived.Add(ackBytes)
	if a.Status == ackOK && len(targets) == 1 {
		end := time.Now()
		times.add(end, end.Sub(start))
	}
	return a, nil
}

// readAck reads the ack of packet seq from c by deadline.
func readAck(c net.Conn, deadline time.Time, seq uint32) (ack, error) {
	var b [ackBytes]byte
	c.SetReadDeadline(deadline)
	if _, err := io.ReadFull(c, b[:]); err != nil {
		return ack{}, dropped(err)
	}
	a, err := parseAck(b[:])
	if err != nil {
		return ack{}, err
	}
	if a.Seq != seq {
		return ack{}, fmt.Errorf("%w: ack of packet %d where %d was due", errProtocol, a.Seq, seq)
	}
	return a, nil
}

// writeAck sends an error ack upstream, best effort: the connection is
// closed next anyway.
func (s *dataServer) writeAck(up net.Conn, a ack) {
	var b [ackBytes]byte
	a.put(b[:])
	up.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := up.Write(b[:]); err == nil {
		s.counters.probeBytesSent.Add(ackBytes)
	}
}

// dropped marks an I/O error as a dropped connection.
func dropped(err error) error {
	if errors.Is(err, errProtocol) || errors.Is(err, errDropped) {
		return err
	}
	return fmt.Errorf("%w: %w", errDropped, err)
}

// shutdown reports whether err comes from ctx ending: the connection was
// closed under the operation, or the operation saw the context's error.
// A failure that merely happened near the end is still counted.
func shutdown(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, net.ErrClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded))
}

// sleepCtx waits d and reports true, or reports false once ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
