package datanode

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// dataServer serves probe pipelines on an agent's data port: it receives
// blocks, forwards them to the next node, acknowledges upstream only after
// the downstream node acknowledged, and, as the next-to-last node of a
// pipeline, times every packet to the last node.
//
// Reference: BlockReceiver.receivePacket and PacketResponder (HDFS).
type dataServer struct {
	id         string
	metrics    *PeerMetrics // nil: relay, time nothing (peer statistics off)
	recent     *recentLog   // the blocks it times go into heartbeats too; nil: none
	counters   *counters
	timeout    time.Duration
	faultDelay time.Duration
	dial       dialFunc
	log        *slog.Logger
	slots      chan struct{} // one token per connection served
}

func newDataServer(id string, m *PeerMetrics, c *counters, timeout, faultDelay time.Duration, dial dialFunc, log *slog.Logger) *dataServer {
	return &dataServer{id: id, metrics: m, counters: c, timeout: timeout, faultDelay: faultDelay,
		dial: dial, log: log, slots: make(chan struct{}, MaxInboundProbes)}
}

// serve accepts probe connections on ln until ctx is done, then closes ln
// and waits for the connections it serves to end.
func (s *dataServer) serve(ctx context.Context, ln net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var pause time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors or the like: wait, as net/http does.
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			s.log.Warn("accept on the data port failed", slog.Duration("retryIn", pause), slog.Any("err", err))
			if !sleepCtx(ctx, pause) {
				return
			}
			continue
		}
		pause = 0
		select {
		case s.slots <- struct{}{}:
		default:
			s.counters.refusedConns.Add(1)
			s.log.Warn("probe connection refused: too many at once", slog.String("from", conn.RemoteAddr().String()),
				slog.Int("max", MaxInboundProbes))
			conn.Close()
			continue
		}
		wg.Go(func() {
			defer func() { <-s.slots }()
			s.handle(ctx, conn)
		})
	}
}

// handle serves one probe connection and counts and logs how it ended.
func (s *dataServer) handle(ctx context.Context, up net.Conn) {
	defer up.Close()
	stop := context.AfterFunc(ctx, func() { up.Close() })
	defer stop()
	hdr, err := s.relay(ctx, up)
	if err == nil {
		s.counters.relayedBlocks.Add(1)
		return
	}
	if shutdown(ctx, err) {
		return
	}
	s.countFailure(err)
	attrs := []any{slog.String("from", hdr.From), slog.String("remote", up.RemoteAddr().String()),
		slog.Uint64("block", hdr.BlockID), slog.Any("targets", hdr.Targets), slog.Any("err", err)}
	if errors.Is(err, errDownstream) {
		s.log.Info("probe block failed downstream", attrs...)
	} else {
		s.log.Warn("probe block failed", attrs...)
	}
}

// countFailure counts a failed probe connection by its kind.
func (s *dataServer) countFailure(err error) {
	switch {
	case errors.Is(err, errCorrupt):
		s.counters.corruptPackets.Add(1)
	case errors.Is(err, errProtocol):
		s.counters.protocolErrors.Add(1)
	case errors.Is(err, errDownstream):
		// Counted by the node that saw it.
	default:
		s.counters.droppedConnections.Add(1)
	}
}
