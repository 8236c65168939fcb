package datanode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"math/rand/v2"
	"time"
)

// prober writes this agent's probe blocks: every interval one block of
// packets × packetBytes through a pipeline of two or three peers taken at
// random, one packet in flight at a time.
//
// A prober is used by one goroutine, its run loop (or a test).
type prober struct {
	id       string
	peers    []string // the peers, without this node
	packets  int
	interval time.Duration
	timeout  time.Duration
	dial     dialFunc
	metrics  *PeerMetrics
	counters *counters
	log      *slog.Logger
	rng      *rand.Rand
	pkt      []byte // packet header and payload; the payload is random bytes
}

func newProber(cfg Config, peers []string, m *PeerMetrics, c *counters, dial dialFunc, log *slog.Logger, seed uint64) *prober {
	rng := rand.New(rand.NewPCG(seed, seed^0x5107_9ee5))
	pkt := make([]byte, packetHeaderBytes+cfg.ProbePacketBytes)
	for i := packetHeaderBytes; i < len(pkt); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		copy(pkt[i:], w[:])
	}
	return &prober{id: cfg.ID, peers: peers, packets: cfg.ProbePackets, interval: cfg.ProbeInterval,
		timeout: cfg.ProbeTimeout, dial: dial, metrics: m, counters: c, log: log, rng: rng, pkt: pkt}
}

// run writes a block every interval until ctx is done. The first block
// starts after a random part of the interval, so that agents started
// together do not probe in step; a block that overruns the interval delays
// the next one, so blocks start at least an interval apart and the
// agent injects at most packets × packetBytes per interval.
func (p *prober) run(ctx context.Context) {
	timer := time.NewTimer(time.Duration(p.rng.Int64N(int64(p.interval))))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start := time.Now()
		pipeline := choosePipeline(p.rng, p.peers)
		err := p.probe(ctx, pipeline)
		switch {
		case err == nil:
			p.log.Debug("probe block written", slog.Any("pipeline", pipeline), slog.Duration("took", time.Since(start)))
		case shutdown(ctx, err):
			return
		case errors.Is(err, errDownstream):
			p.log.Info("probe block failed downstream", slog.Any("pipeline", pipeline), slog.Any("err", err))
		default:
			p.log.Warn("probe block failed", slog.Any("pipeline", pipeline), slog.Any("err", err))
		}
		timer.Reset(max(0, p.interval-time.Since(start)))
	}
}

// probe writes one block through pipeline and counts the outcome. When the
// pipeline has one node, this node is its next-to-last and times it.
func (p *prober) probe(ctx context.Context, pipeline []string) error {
	err := p.write(ctx, pipeline)
	switch {
	case err == nil:
		p.counters.probeBlocks.Add(1)
		return nil
	case shutdown(ctx, err):
		return err
	}
	p.counters.probeBlocksFailed.Add(1)
	switch {
	case errors.Is(err, errCorrupt):
		p.counters.corruptPackets.Add(1)
	case errors.Is(err, errProtocol):
		p.counters.protocolErrors.Add(1)
	case errors.Is(err, errDownstream):
	default:
		p.counters.droppedConnections.Add(1)
	}
	if errors.Is(err, errDropped) {
		peerFailed(p.metrics, p.counters, p.log, pipeline[0])
	}
	return err
}

func (p *prober) write(ctx context.Context, pipeline []string) error {
	if len(pipeline) == 0 {
		panic("BUG: prober.write: empty pipeline")
	}
	dctx, cancel := context.WithTimeout(ctx, p.timeout)
	conn, err := p.dial(dctx, pipeline[0])
	cancel()
	if err != nil {
		return fmt.Errorf("dial %s: %w", pipeline[0], dropped(err))
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	payload := p.pkt[packetHeaderBytes:]
	hdr := blockHeader{BlockID: p.rng.Uint64(), Packets: uint32(p.packets), PacketBytes: uint32(len(payload)),
		From: p.id, Targets: pipeline[1:]}
	b := hdr.appendTo(make([]byte, 0, 64))
	conn.SetWriteDeadline(time.Now().Add(p.timeout))
	if _, err := conn.Write(b); err != nil {
		return fmt.Errorf("write block header to %s: %w", pipeline[0], dropped(err))
	}
	p.counters.probeBytesSent.Add(int64(len(b)))
	waitAck := p.timeout * time.Duration(len(pipeline))
	var times *blockTimes
	if len(pipeline) == 1 {
		times = timeBlock(p.metrics, p.counters, pipeline[0])
		defer times.flush()
	}
	for seq := range uint32(p.packets) {
		// Stamp the block and sequence into the payload, so that every
		// packet differs and is checksummed afresh.
		var stamp [12]byte
		binary.BigEndian.PutUint64(stamp[:], hdr.BlockID)
		binary.BigEndian.PutUint32(stamp[8:], seq)
		copy(payload, stamp[:])
		packetHeader{Seq: seq, Length: uint32(len(payload)), CRC: crc32.Checksum(payload, castagnoli)}.put(p.pkt)

		start := time.Now()
		conn.SetWriteDeadline(start.Add(p.timeout))
		if _, err := conn.Write(p.pkt); err != nil {
			return fmt.Errorf("packet %d to %s: %w", seq, pipeline[0], dropped(err))
		}
		p.counters.probeBytesSent.Add(int64(len(p.pkt)))
		a, err := readAck(conn, start.Add(waitAck), seq)
		if err != nil {
			return fmt.Errorf("ack of packet %d from %s: %w", seq, pipeline[0], err)
		}
		p.counters.probeBytesReceived.Add(ackBytes)
		if a.Status != ackOK {
			return fmt.Errorf("%w: packet %d: %s", errDownstream, seq, a.Status)
		}
		if times != nil {
			end := time.Now()
			times.add(end, end.Sub(start))
		}
	}
	return nil
}

// choosePipeline returns two or three distinct peers in random order,
// fewer when there are fewer peers, nil when there are none.
func choosePipeline(rng *rand.Rand, peers []string) []string {
	n := min(2+rng.IntN(2), len(peers))
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	idx := make([]int, len(peers))
	for i := range idx {
		idx[i] = i
	}
	for i := range n { // a partial Fisher–Yates shuffle
		j := i + rng.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
		out = append(out, peers[idx[i]])
	}
	return out
}

// probePeers returns peers without self.
func probePeers(self string, peers []string) []string {
	out := make([]string, 0, len(peers))
	for _, p := range peers {
		if p != self {
			out = append(out, p)
		}
	}
	return out
}
