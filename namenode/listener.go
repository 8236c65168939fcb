package namenode

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener is a net.Listener that serves at most max connections at
// once (slowpeer.namenode.max.connections). A connection accepted over the
// cap makes room by closing the connection that has been outside a request
// the longest: a keep-alive connection waiting for its next request, or
// one still sending its header (a client dribbling headers ends there).
// Connections inside a handler are never closed; when all are, the new
// connection waits for one to end or leave its request, and the ones after
// it wait in the kernel's listen backlog.
// So a flood of idle connections cannot keep a
// heartbeat out, and the descriptors and buffers in use stay bounded.
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
	}
}

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

// evictOne closes the connection outside a request the longest, and
// reports whether there was one.
func (l *limitListener) evictOne() bool {
	var oldest *limitedConn
	var since int64
	l.mu.Lock()
	for c := range l.conns {
		if c.busy.Load() > 0 {
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
// middleware marks the time it spends inside a request (enter, leave).
type limitedConn struct {
	net.Conn
	l     *limitListener
	busy  atomic.Int32 // requests inside a handler: 0 or 1 on HTTP/1
	since atomic.Int64 // Unix ns: accepted, or left its last request
	once  sync.Once
}

func (c *limitedConn) enter() { c.busy.Add(1) }

func (c *limitedConn) leave() {
	c.since.Store(time.Now().UnixNano())
	c.busy.Add(-1)
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
