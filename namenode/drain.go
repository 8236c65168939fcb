package namenode

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// Many HTTP clients write the whole request body before they read the
// answer: Python's urllib, Java's HttpURLConnection (which a Hive hook
// uses). When the Server refuses such a request without reading its body
// and closes the connection, the unread bytes make the kernel reset the
// connection, and the client sees "connection reset" instead of the
// error. So before an error answer, the Server reads and discards what is
// left of the body, at most drainBytes and for at most drainTime; a client
// that waits for "100 Continue" is answered at once, without being asked
// for its body.
const (
	// drainBytes is 16 heartbeats of the largest size: a client sending
	// more is not a DataNode or a hook that went wrong, and is cut off.
	drainBytes = 16 * MaxHeartbeatBytes
	// drainTime bounds how long a refused client holds its connection.
	drainTime = 5 * time.Second
)

// countingBody is a request body that remembers whether anything was
// read from it.
type countingBody struct {
	io.ReadCloser
	read bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 || err != nil {
		b.read = true
	}
	return n, err
}

// drainingWriter drains the request body before the first error status
// is written. It replaces gin's writer for the whole request, so that the
// routes of other packages (Handle) drain too.
type drainingWriter struct {
	gin.ResponseWriter
	body io.Reader // the body as the server gave it; nil when there is none
	// expect is the body of a request with "Expect: 100-continue", nil
	// for others: it tells whether the handler read from it (and so made
	// the server send 100 Continue).
	expect *countingBody
	// arriving is the body as the handler reads it, when the connection
	// is a limitedConn: a body whose read failed (its deadline passed)
	// is not drained.
	arriving *arrivingBody
	drained  bool
}

// Unwrap gives http.ResponseController the writer underneath (deadlines,
// flushing of streams).
func (w *drainingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteHeader drains the body before an error status.
func (w *drainingWriter) WriteHeader(code int) {
	if code >= 400 && !w.drained && !w.Written() {
		w.drain()
	}
	w.ResponseWriter.WriteHeader(code)
}

// drain reads and discards the rest of the body, within drainBytes and
// drainTime, unless the client waits for 100 Continue and was not sent
// it (then the server closes the connection after the answer, and the
// client never sends its body), or reading it failed already (a client
// past the body's deadline gets no more time).
func (w *drainingWriter) drain() {
	w.drained = true
	if w.body == nil || w.expect != nil && !w.expect.read || w.arriving != nil && w.arriving.failed {
		return
	}
	// Not every writer has a connection (httptest's has not); then the
	// byte bound alone holds.
	_ = http.NewResponseController(w.ResponseWriter).SetReadDeadline(time.Now().Add(drainTime))
	io.CopyN(io.Discard, w.body, drainBytes)
}

// prepare is the first middleware: it installs the drainingWriter, and
// marks for the connection cap (listener.go) when the request has all
// arrived and until its handler ends.
func (s *Server) prepare(c *gin.Context) {
	dw := &drainingWriter{ResponseWriter: c.Writer}
	r := c.Request
	hasBody := r.Body != nil && r.Body != http.NoBody
	if hasBody {
		dw.body = r.Body
		// On a shallow copy: the server itself must still see its own
		// body in its request, to close the connection when the body was
		// left unread.
		c.Request = r.WithContext(r.Context())
		if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
			dw.expect = &countingBody{ReadCloser: r.Body}
			c.Request.Body = dw.expect
		}
	}
	if lc := connFromContext(r.Context()); lc != nil {
		var body *arrivingBody
		if hasBody {
			body = &arrivingBody{ReadCloser: c.Request.Body, left: r.ContentLength, c: lc}
			c.Request.Body, dw.arriving = body, body
		} else {
			lc.arrived()
		}
		defer func() { lc.leave(body == nil || body.arrived) }()
	}
	c.Writer = dw
	c.Next()
}

// share keeps a quarter of the connection cap for heartbeats: a request
// of another route (but the health paths), while such requests hold the
// rest of the cap inside handlers, is answered 429 at once and its
// connection closed.
func (s *Server) share(c *gin.Context) {
	lc := connFromContext(c.Request.Context())
	if lc == nil || c.FullPath() == HeartbeatPath || isHealthPath(c.Request.URL.Path) {
		return
	}
	if !lc.l.admitOther() {
		c.Header("Connection", "close")
		c.Header("Retry-After", "1")
		s.fail(c, http.StatusTooManyRequests, "busy: requests other than heartbeats hold their share of the connections ("+MaxConnectionsKey+"); retry")
		return
	}
	defer lc.l.leaveOther()
	c.Next()
}
