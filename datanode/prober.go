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

// prober writes this agent's probe blocks: coverage blocks to one peer
// each, the peers in Rounds, paced by Config.Coverage, and at once the
// blocks a service asks for (confirmJob), one packet in flight at a time.
//
// A prober is used by one goroutine, its run loop (or a test).
type prober struct {
	id       string
	peers    []string // the peers, without this node
	packets  int      // a block's packets: ProbePackets
	timeout  time.Duration
	coverage Coverage
	dial     dialFunc
	metrics  *PeerMetrics
	recent   *recentLog      // nil: blocks go into no heartbeat
	jobs     chan confirmJob // nil: nobody asks
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
	return &prober{id: cfg.ID, peers: peers, packets: cfg.ProbePackets,
		timeout: cfg.ProbeTimeout, coverage: cfg.Coverage(len(peers)), dial: dial, metrics: m, counters: c,
		log: log, rng: rng, pkt: pkt}
}

// run writes blocks until ctx is done: a coverage block every
// Coverage.Every, and the blocks a service asks for as soon as they come.
// The first coverage block starts after a random part of Every, so that
// agents started together do not probe in step. A block that overruns
// Every delays the next one, and asked-for blocks delay the coverage by
// their packets' share of the pace, so the agent never sends more than
// Coverage allows on average.
func (p *prober) run(ctx context.Context) {
	rounds := NewRounds(p.peers, p.rng)
	next := time.Now().Add(time.Duration(p.rng.Int64N(int64(p.coverage.Every) + 1)))
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-p.jobs:
			blocks := p.confirm(ctx, job)
			perPacket := p.coverage.Every / time.Duration(p.coverage.Packets)
			next = later(next, time.Now()).Add(time.Duration(blocks*p.packets) * perPacket)
		case <-timer.C:
			p.block(ctx, rounds.Next(), p.coverage.Packets, 0)
			next = later(next.Add(p.coverage.Every), time.Now())
		}
		if ctx.Err() != nil {
			return
		}
		timer.Reset(time.Until(next))
	}
}

// confirm writes the blocks job asks for, one after another, then calls
// its done, and returns how many it wrote.
func (p *prober) confirm(ctx context.Context, job confirmJob) int {
	n := 0
	for _, r := range job.requests {
		for range r.Blocks {
			if ctx.Err() != nil {
				return n
			}
			p.counters.probeRequestedBlocks.Add(1)
			p.block(ctx, r.Node, p.packets, r.Round)
			n++
		}
	}
	p.log.Debug("probe requests done", slog.Int("blocks", n))
	job.done()
	return n
}

// block writes one block of packets to peer, for round, and logs a failure.
func (p *prober) block(ctx context.Context, peer string, packets int, round int64) {
	start := time.Now()
	err := p.probeBlock(ctx, []string{peer}, packets, round)
	switch {
	case err == nil:
		p.log.Debug("probe block written", slog.String("peer", peer), slog.Int64("round", round), slog.Duration("took", time.Since(start)))
	case shutdown(ctx, err):
	case errors.Is(err, errDownstream):
		p.log.Info("probe block failed downstream", slog.String("peer", peer), slog.Any("err", err))
	default:
		p.log.Warn("probe block failed", slog.String("peer", peer), slog.Any("err", err))
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// probe writes one block of ProbePackets packets through pipeline and
// counts the outcome. When the pipeline has one node, this node is its
// next-to-last and times it.
func (p *prober) probe(ctx context.Context, pipeline []string) error {
	return p.probeBlock(ctx, pipeline, p.packets, 0)
}

// probeBlock is probe with packets packets, its timing in round.
func (p *prober) probeBlock(ctx context.Context, pipeline []string, packets int, round int64) error {
	err := p.write(ctx, pipeline, packets, round)
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

func (p *prober) write(ctx context.Context, pipeline []string, packets int, round int64) error {
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
	hdr := blockHeader{BlockID: p.rng.Uint64(), Packets: uint32(packets), PacketBytes: uint32(len(payload)),
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
		times.recent, times.round = p.recent, round
		defer times.flush()
	}
	for seq := range uint32(packets) {
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
