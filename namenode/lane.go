package namenode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The heartbeat lane serves the plain-HTTP connections of the service.
// Its one reason to exist is the memory and the CPU of thousands of
// agents each holding a keep-alive connection and posting a heartbeat
// every few seconds: net/http keeps, for every connection, 8 KB of read
// and write buffers and a goroutine stack grown by the handler for the
// connection's whole life, and starts a goroutine for every request
// (the background read that watches for a closed connection). The lane
// waits for a connection's next request with no buffer at all
// (readiness), takes a pooled reader only while a request arrives,
// and answers a heartbeat on the connection's own goroutine.
//
// It reads only the plainest request itself: "POST /v1/heartbeat
// HTTP/1.1" with one Host, one Content-Length and neither
// Transfer-Encoding, Expect nor Upgrade, its head in one read buffer.
// Every other request, and so the connection it comes on, is handed to
// net/http with the bytes read so far, and net/http serves that
// connection from then on, as it serves every connection under TLS. The
// request the lane reads goes through the same handler as every other
// (the access log, the bearer token, the limits, the drain of refused
// bodies); only the reading of the head and the writing of the answer
// are the lane's.
type lane struct {
	s       *Server
	handler http.Handler
	ln      *limitListener
	handed  *handoffListener

	closing atomic.Bool
	wg      sync.WaitGroup // the lane's connection goroutines

	mu    sync.Mutex
	conns map[*laneConn]struct{}

	// reading counts the connections holding a read buffer: those whose
	// request is arriving or being answered.
	reading atomic.Int32
	// idleTimeout bounds the wait for a keep-alive connection's next
	// request, as http.Server.IdleTimeout; tests shorten it.
	idleTimeout time.Duration
}

// laneConn is a connection of the lane.
type laneConn struct {
	*limitedConn
	ready  *readiness
	remote string
	idle   atomic.Bool // waiting for its next request
}

func newLane(s *Server, h http.Handler, ln *limitListener) *lane {
	return &lane{s: s, handler: h, ln: ln, handed: newHandoffListener(ln.Addr()),
		conns: make(map[*laneConn]struct{}), idleTimeout: idleTimeout}
}

// run accepts connections until the listener fails or closes, and
// returns http.ErrServerClosed after shutdown, else the listener's error.
// As net/http does, it waits and tries again after a temporary error (out
// of file descriptors), from 5 ms up to a second.
func (l *lane) run() error {
	var pause time.Duration
	for {
		c, err := l.ln.Accept()
		if ne, ok := err.(interface{ Temporary() bool }); ok && ne.Temporary() && !l.closing.Load() {
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			l.s.log.Warn("accept failed; trying again", slog.Any("error", err), slog.Duration("in", pause))
			time.Sleep(pause)
			continue
		}
		pause = 0
		if err != nil {
			if l.closing.Load() {
				return http.ErrServerClosed
			}
			return err
		}
		lc := c.(*limitedConn)
		cn := &laneConn{limitedConn: lc, ready: newReadiness(lc.Conn), remote: lc.RemoteAddr().String()}
		l.mu.Lock()
		l.conns[cn] = struct{}{}
		l.mu.Unlock()
		l.wg.Go(func() { l.serve(cn) })
	}
}

// shutdown stops accepting, closes the idle connections and waits for the
// others to finish their request until ctx is done; then it closes them
// all and returns ctx's error.
func (l *lane) shutdown(ctx context.Context) error {
	l.closing.Store(true)
	l.ln.Close()
	l.mu.Lock()
	for c := range l.conns {
		if c.idle.Load() {
			c.SetReadDeadline(time.Now()) // wakes its wait
		}
	}
	l.mu.Unlock()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		for c := range l.conns {
			c.Close()
		}
		l.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// serve answers c's heartbeats until c closes, idles out, or sends a
// request for net/http.
func (l *lane) serve(c *laneConn) {
	var br *bufio.Reader
	handed := false
	defer func() {
		if v := recover(); v != nil {
			l.s.log.Error("panic serving a connection", slog.String("client", c.remote),
				slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
		}
		l.release(br)
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		if !handed {
			c.Close()
		}
	}()
	for {
		if br == nil || br.Buffered() == 0 {
			l.release(br)
			br = nil
			if !l.wait(c) {
				return
			}
			br = laneReaders.Get().(*bufio.Reader)
			br.Reset(c.limitedConn)
			l.reading.Add(1)
		}
		start := time.Now()
		c.SetReadDeadline(start.Add(l.s.cfg.HeaderReadTimeout))
		head, err := readHead(br)
		if err != nil && err != errHeadTooLarge {
			return // gone, or too slow: net/http closes such a connection too
		}
		ex := newExchange(c)
		if err != nil || !parseHead(head, ex) {
			ex.free()
			handed = l.handOff(c, br)
			return
		}
		br.Discard(len(head))
		c.SetReadDeadline(start.Add(l.s.cfg.HeaderReadTimeout + l.s.cfg.BodyReadTimeout))
		keep := l.answer(c, br, ex)
		ex.free()
		if !keep {
			return
		}
	}
}

// wait waits for c's next request with no buffer, and reports whether one
// is arriving.
func (l *lane) wait(c *laneConn) bool {
	c.idle.Store(true)
	defer c.idle.Store(false)
	c.SetReadDeadline(time.Now().Add(l.idleTimeout))
	// After the deadline: a shutdown that set closing before this sees
	// it here, one after it finds c idle and moves the deadline to now.
	if l.closing.Load() {
		return false
	}
	return c.ready.wait() == nil && !l.closing.Load()
}

func (l *lane) release(br *bufio.Reader) {
	if br == nil {
		return
	}
	br.Reset(nil)
	laneReaders.Put(br)
	l.reading.Add(-1)
}

// handOff gives c to net/http with what br read of it, and reports
// whether net/http took it.
func (l *lane) handOff(c *laneConn, br *bufio.Reader) bool {
	read, _ := br.Peek(br.Buffered())
	hc := &handedConn{limitedConn: c.limitedConn, read: bytes.Clone(read)}
	c.SetReadDeadline(time.Time{}) // net/http sets its own
	return l.handed.give(hc)
}

// answer serves the heartbeat of ex.req, whose body is the next
// ContentLength bytes of br, and reports whether c stays open.
func (l *lane) answer(c *laneConn, br *bufio.Reader, ex *exchange) bool {
	req, w := ex.req, &ex.w
	ex.body.r = io.LimitedReader{R: br, N: req.ContentLength}
	if req.ContentLength > 0 {
		req.Body = &ex.body
	}
	l.handler.ServeHTTP(w, req)
	keep := ex.body.r.N == 0 && !req.Close && !hasToken(w.header, "Connection", "close") && !l.closing.Load()
	c.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.send(keep) == nil && keep
}

// exchange is a request the lane reads and its answer, pooled: the
// request, made once with its context, its header, body and writer.
type exchange struct {
	req   *http.Request
	made  http.Request // req as made, with its context: reset copies it
	ctx   laneContext
	url   url.URL
	field http.Header
	// values holds the field values, host the last Host (parseHead).
	values []string
	host   string
	body   laneBody
	w      laneWriter
}

var exchanges = sync.Pool{New: func() any {
	ex := &exchange{field: make(http.Header), w: laneWriter{header: make(http.Header)}}
	r, err := http.NewRequestWithContext(&ex.ctx, http.MethodPost, HeartbeatPath, http.NoBody)
	if err != nil {
		panic("BUG: namenode: " + err.Error())
	}
	r.Proto, r.RequestURI, r.URL = "HTTP/1.1", HeartbeatPath, &ex.url
	ex.req, ex.made = r, *r
	return ex
}}

// newExchange returns a pooled exchange, a new request on c (nil: none)
// for parseHead to fill.
func newExchange(c *laneConn) *exchange {
	ex := exchanges.Get().(*exchange)
	ex.reset(c)
	return ex
}

// free gives ex back to the pool, holding nothing of its request.
func (ex *exchange) free() {
	ex.reset(nil)
	exchanges.Put(ex)
}

// reset makes ex a new request on c (nil: none).
func (ex *exchange) reset(c *laneConn) {
	var lc *limitedConn
	*ex.req = ex.made
	if c != nil {
		lc, ex.req.RemoteAddr = c.limitedConn, c.remote
	}
	ex.url = heartbeatURL
	clear(ex.field)
	clear(ex.values)
	ex.values = ex.values[:0]
	ex.req.Header = ex.field
	ex.body = laneBody{}
	ex.ctx.lc = lc
	ex.w.reset(lc)
}

// laneContext is the context of a request the lane reads: it holds the
// connection (connFromContext), and is never done.
type laneContext struct{ lc *limitedConn }

func (*laneContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*laneContext) Done() <-chan struct{}       { return nil }
func (*laneContext) Err() error                  { return nil }

func (c *laneContext) Value(key any) any {
	if _, ok := key.(connKey); ok && c.lc != nil {
		return c.lc
	}
	return nil
}

// laneReaders holds the read buffers of the lane's connections while a
// request arrives.
var laneReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, laneBufferBytes) }}

// laneBufferBytes is the read buffer: a request's head must fit in it to
// be the lane's (an agent's is about 250 bytes).
const laneBufferBytes = 4 << 10

var (
	errHeadTooLarge = errors.New("request head larger than the lane's buffer")
	endOfHead       = []byte("\r\n\r\n")
)

// readHead returns a request's head, its blank line included, peeked from
// br: nothing is consumed. A head that does not fit in br is
// errHeadTooLarge, with what br holds.
func readHead(br *bufio.Reader) ([]byte, error) {
	for {
		n := br.Buffered()
		b, _ := br.Peek(n)
		if i := bytes.Index(b, endOfHead); i >= 0 {
			return b[:i+len(endOfHead)], nil
		}
		if n == br.Size() {
			return b, errHeadTooLarge
		}
		if _, err := br.Peek(n + 1); err != nil {
			return b, err
		}
	}
}

// laneBody is the body of a request the lane reads.
type laneBody struct{ r io.LimitedReader }

func (b *laneBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *laneBody) Close() error               { return nil }

// laneWriter is the answer to a request the lane reads: it holds the
// whole answer and writes it in one piece, with its length.
type laneWriter struct {
	c      *limitedConn
	header http.Header
	status int
	body   bytes.Buffer
	out    bytes.Buffer
}

func (w *laneWriter) reset(c *limitedConn) {
	w.c, w.status = c, 0
	clear(w.header)
	w.body.Reset()
	w.out.Reset()
}

func (w *laneWriter) Header() http.Header { return w.header }

func (w *laneWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
}

func (w *laneWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// SetReadDeadline lets http.ResponseController set the body's deadline,
// as net/http's writer does (drain.go).
func (w *laneWriter) SetReadDeadline(t time.Time) error { return w.c.SetReadDeadline(t) }

// send writes the answer: the status line, the Date, the length, the
// handler's header fields, and "Connection: close" unless keep.
func (w *laneWriter) send(keep bool) error {
	w.WriteHeader(http.StatusOK)
	h := w.header
	if h.Get("Content-Type") == "" && w.body.Len() > 0 {
		h.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	if !keep {
		h.Set("Connection", "close")
	}
	out := &w.out
	fmt.Fprintf(out, "HTTP/1.1 %03d %s\r\nDate: ", w.status, http.StatusText(w.status))
	out.Write(time.Now().UTC().AppendFormat(out.AvailableBuffer(), http.TimeFormat))
	out.WriteString("\r\nContent-Length: ")
	out.Write(strconv.AppendInt(out.AvailableBuffer(), int64(w.body.Len()), 10))
	out.WriteString("\r\n")
	h.Write(out)
	out.WriteString("\r\n")
	out.Write(w.body.Bytes())
	_, err := w.c.Write(out.Bytes())
	return err
}

// handedConn is a connection the lane hands to net/http: read comes
// first, then the rest of the connection.
type handedConn struct {
	*limitedConn
	read []byte
}

func (c *handedConn) Read(p []byte) (int, error) {
	if len(c.read) > 0 {
		n := copy(p, c.read)
		c.read = c.read[n:]
		return n, nil
	}
	return c.limitedConn.Read(p)
}

// NetConn gives withConn the limitedConn underneath.
func (c *handedConn) NetConn() net.Conn { return c.limitedConn }

// handoffListener is the listener net/http serves: the connections the
// lane hands over.
type handoffListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// give hands c to net/http, or reports false once the listener is
// closed.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// heartbeatURL is the URL of every request the lane reads.
var heartbeatURL = url.URL{Path: HeartbeatPath}
