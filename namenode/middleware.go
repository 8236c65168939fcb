package namenode

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
)

// fail aborts the request with status and a one-line reports.ErrorBody of
// at most reports.MaxErrorBytes (messages quote input clipped already,
// reports.Clip; this bounds the rest), and keeps the message for the
// access log.
func (s *Server) fail(c *gin.Context, status int, msg string) {
	msg = strings.Join(strings.Fields(msg), " ")
	msg = reports.ClipTo(msg, reports.MaxErrorBytes)
	c.Set(logErrorKey, msg)
	c.AbortWithStatusJSON(status, reports.ErrorBody{Error: msg})
}

const logErrorKey = "slowpeer.error"

// unmatchedRoute labels the duration of requests that matched no route
// (404, and 405 for a method the path does not take), so that scanning
// random paths cannot grow the metrics.
const unmatchedRoute = "unmatched"

// otherMethod labels the duration of requests whose method is not one of
// the standard ones: net/http takes any token as a method, and a label
// taken verbatim would let every request add series.
const otherMethod = "other"

// methodLabel is the method label of a request: the method when it is a
// standard one (RFC 9110 section 9, and PATCH of RFC 5789), else
// otherMethod.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodPatch, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return otherMethod
}

// accessLog times every request into the duration histograms (labelled
// with methodLabel and the matched route pattern), counts 4xx answers, and
// writes one structured log record for it: at Info level, but Debug for
// accepted heartbeats (a large cluster sends thousands a second) and for
// 4xx answers (a flood of bad requests would flood the log; Step logs a
// summary of them instead), and Error for answers of 500 and above.
func (s *Server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	took := time.Since(start)
	route := strings.TrimSuffix(c.FullPath(), prefixWildcard) // a HandlePrefix route is its prefix
	if route == "" {
		route = unmatchedRoute
	}
	s.metrics.observe(methodLabel(c.Request.Method), route, took)

	status := c.Writer.Status()
	s.metrics.refused.add(status)
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400, status < 300 && route == HeartbeatPath:
		level = slog.LevelDebug
	}
	ctx := c.Request.Context()
	if !s.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", status),
		slog.Duration("duration", took),
		slog.String("client", c.ClientIP()),
		slog.Int("bytes", max(c.Writer.Size(), 0)),
	}
	if msg, ok := c.Get(logErrorKey); ok && status >= 400 {
		attrs = append(attrs, slog.Any("error", msg))
	}
	s.log.LogAttrs(ctx, level, "http request", attrs...)
}

// recovered answers 500 for a handler that panicked and logs the panic
// with its stack.
func (s *Server) recovered(c *gin.Context, err any) {
	s.log.Error("panic serving request",
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.String("panic", fmt.Sprint(err)),
		slog.String("stack", string(debug.Stack())))
	s.fail(c, http.StatusInternalServerError, "internal error")
}

// auth lets a request through when the service is open, when it only
// reads (GET, HEAD, OPTIONS) and AuthReads is off or it reads a health
// path (/healthz, /readyz), or when it carries
// "Authorization: Bearer <token>" with the configured token. Otherwise it
// answers 401 and the handler never runs, so nothing of the request is
// applied. The tokens are compared as SHA-256 hashes in constant time,
// which hides their length too.
func (s *Server) auth(c *gin.Context) {
	s.prove(c)
	if s.cfg.AuthToken == "" || !s.cfg.AuthReads && isRead(c.Request.Method) ||
		isRead(c.Request.Method) && isHealthPath(c.Request.URL.Path) {
		return
	}
	scheme, token, _ := strings.Cut(c.GetHeader("Authorization"), " ")
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	ok := subtle.ConstantTimeCompare(got[:], s.authHash[:]) == 1
	if ok && strings.EqualFold(scheme, "Bearer") {
		return
	}
	if c.FullPath() == HeartbeatPath {
		s.metrics.reject(reasonUnauthorized)
	}
	c.Header("WWW-Authenticate", `Bearer realm="slowpeer"`)
	s.fail(c, http.StatusUnauthorized, "missing or wrong bearer token")
}
