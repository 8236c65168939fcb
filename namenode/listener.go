package namenode

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener is a net.Listener that serves at most max connections at
// once (slowpeer.namenode.max.connections). A connection accepted over the
// cap makes room by closing the connection that has been waiting for its
// client the longest: a keep-alive connection waiting for its next
// request, or one still sending its header or its body (a client
// dribbling either ends there). Connections whose request has all arrived
// and is being answered are never closed; when all are, the new
// connection waits for one to end or leave its request, and the ones after
// it wait in the kernel's listen backlog. Requests other than heartbeats
// may hold at most maxOthers connections inside a handler (Server.share):
// the rest of the cap, a quarter, is the heartbeats'.
// So a flood of idle or dribbling connections, or of long reads, cannot
// keep a heartbeat out, and the descriptors and buffers in use stay
// bounded.
//
// It is safe for concurrent use; Accept is called by one goroutine, the
// http.Server's.
type limitListener struct {
	net.Listener
	slots chan struct{} // one token per connection served
	freed chan struct{} // a connection left a request: it may be closed now
	done  chan struct{} // closed by Close
	once  sync.Once

	evicted atomic.Uint64 // connections closed to make room

	// others counts the requests other than heartbeats inside a handler;
	// at most maxOthers are let in.
	others    atomic.Int32
	maxOthers int32

	mu    sync.Mutex
	conns map[*limitedConn]struct{}
}

func newLimitListener(ln net.Listener, max int) *limitListener {
	if max < 1 {
		panic("BUG: namenode: connection cap below 1")
	}
	return &limitListener{
		Listener: ln,
		slots:    make(chan struct{}, max),
		freed:    make(chan struct{}, 1),
		done:     make(chan struct{}),
		conns:    make(map[*limitedConn]struct{}, max),
		// The heartbeats' share is a quarter of the cap.
		maxOthers: int32(max - max/4),
	}
}

// admitOther counts a request other than a heartbeat into a handler, or
// reports false when maxOthers are in already; each true needs a
// leaveOther.
func (l *limitListener) admitOther() bool {
	if l.others.Add(1) > l.maxOthers {
		l.others.Add(-1)
		return false
	}
	return true
}

func (l *limitListener) leaveOther() { l.others.Add(-1) }

// Accept accepts a connection and returns it once it has a slot.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for acquired := false; !acquired; {
		select {
		case l.slots <- struct{}{}:
			acquired = true
			continue
		default:
		}
		if l.evictOne() {
			continue
		}
		select {
		case l.slots <- struct{}{}:
			acquired = true
		case <-l.freed: // try evicting again
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
	lc := &limitedConn{Conn: c, l: l}
	lc.since.Store(time.Now().UnixNano())
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// evictOne closes the connection that has waited for its client the
// longest, and reports whether there was one.
func (l *limitListener) evictOne() bool {
	var oldest *limitedConn
	var since int64
	l.mu.Lock()
	for c := range l.conns {
		if c.working.Load() > 0 {
			continue
		}
		if s := c.since.Load(); oldest == nil || s < since {
			oldest, since = c, s
		}
	}
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	l.evicted.Add(1)
	oldest.Close()
	return true
}

// Close closes the listener; an Accept waiting for a slot returns.
func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// open returns the number of connections served.
func (l *limitListener) open() int { return len(l.slots) }

func (l *limitListener) release(c *limitedConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
	<-l.slots
}

// limitedConn is a connection of a limitListener. The Server's first
// middleware marks the time its requests spend being answered, from the
// moment the whole request has arrived (arrived) to the end of the
// handler (leave).
type limitedConn struct {
	net.Conn
	l *limitListener
	// working counts the requests whose whole body has arrived, inside a
	// handler: 0 or 1 on HTTP/1, more on HTTP/2.
	working atomic.Int32
	since   atomic.Int64 // Unix ns: accepted, or left its last request
	once    sync.Once
}

// arrived marks a request of c as being answered: c is not closed to make
// room until leave.
func (c *limitedConn) arrived() { c.working.Add(1) }

// leave marks the end of a request's handler; working says whether it
// had arrived.
func (c *limitedConn) leave(working bool) {
	c.since.Store(time.Now().UnixNano())
	if working {
		c.working.Add(-1)
	}
	select {
	case c.l.freed <- struct{}{}:
	default:
	}
}

// Close closes the connection and gives its slot back, once.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}

// arrivingBody is a request body that marks its connection as answering
// (limitedConn.arrived) once all of it has arrived: its Content-Length
// read, or the end of a body of unknown length. Until then the
// connection may be closed to make room, as one still sending its header.
// It is read by the handler's goroutine only.
type arrivingBody struct {
	io.ReadCloser
	left    int64 // bytes still to come, -1 when unknown
	c       *limitedConn
	arrived bool
	failed  bool // a read failed: the deadline passed, or the connection is gone
}

func (b *arrivingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.failed = true
	}
	if b.left > 0 {
		b.left -= int64(n)
	}
	if !b.arrived && (b.left == 0 || err == io.EOF) {
		b.arrived = true
		b.c.arrived()
	}
	return n, err
}

type connKey struct{}

// withConn is the http.Server's ConnContext: it puts the limitedConn under
// c (c itself, or the connection under a TLS one) into the connection's
// context.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if nc, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = nc.NetConn()
	}
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// connFromContext returns the limitedConn of a request's context, or nil.
func connFromContext(ctx context.Context) *limitedConn {
	lc, _ := ctx.Value(connKey{}).(*limitedConn)
	return lc
}
