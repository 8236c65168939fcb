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
	expect  *countingBody
	drained bool
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
// it: then the server closes the connection after the answer, and the
// client never sends its body.
func (w *drainingWriter) drain() {
	w.drained = true
	if w.body == nil || w.expect != nil && !w.expect.read {
		return
	}
	// Not every writer has a connection (httptest's has not); then the
	// byte bound alone holds.
	_ = http.NewResponseController(w.ResponseWriter).SetReadDeadline(time.Now().Add(drainTime))
	io.CopyN(io.Discard, w.body, drainBytes)
}

// prepare is the first middleware: it marks the connection as inside a
// request for the connection cap (listener.go), and installs the
// drainingWriter.
func (s *Server) prepare(c *gin.Context) {
	if lc := connFromContext(c.Request.Context()); lc != nil {
		lc.enter()
		defer lc.leave()
	}
	dw := &drainingWriter{ResponseWriter: c.Writer}
	if r := c.Request; r.Body != nil && r.Body != http.NoBody {
		dw.body = r.Body
		if strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
			// On a shallow copy: the server itself must still see its
			// own body in its request, to close the connection when the
			// body was left unread.
			dw.expect = &countingBody{ReadCloser: r.Body}
			c.Request = r.WithContext(r.Context())
			c.Request.Body = dw.expect
		}
	}
	c.Writer = dw
	c.Next()
}
