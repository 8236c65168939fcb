package namenode

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// summaryEvery is how often, at most, the Server logs its summary of
// refused requests: a flood of bad requests (wrong token, made-up node
// ids) then costs one log line per period, not one per request.
const summaryEvery = 10 * time.Second

// refusals counts the requests answered 4xx, by status: for
// slowpeer_http_requests_refused_total{code} and for the summary that
// Step logs. Safe for concurrent use; the zero value is ready.
type refusals struct {
	total [100]atomic.Uint64 // index: status - 400
	// handshakes counts the failed TLS handshakes (serverErrors).
	handshakes atomic.Uint64

	// mu guards what the summary has already logged, and the last
	// handshake failure.
	mu               sync.Mutex
	logged           [100]uint64
	loggedHandshakes uint64
	lastHandshake    string
	lastTime         time.Time
}

// handshakeFailed counts a failed TLS handshake; why is net/http's
// "from ADDR: ERROR".
func (r *refusals) handshakeFailed(why string) {
	r.handshakes.Add(1)
	r.mu.Lock()
	r.lastHandshake = reports.ClipTo(why, reports.MaxErrorBytes)
	r.mu.Unlock()
}

// add counts one answer of status; statuses outside 4xx are not counted.
func (r *refusals) add(status int) {
	if status >= 400 && status < 500 {
		r.total[status-400].Add(1)
	}
}

// summary returns the line to log at now: "refused N requests in the last
// 10s: 401×N, 400×M" (most frequent first), with "; failed K TLS
// handshakes, the last from ADDR: ERROR" when some failed (or that alone
// when no request was refused), or "" when nothing was refused since the
// last line or the last line is younger than summaryEvery.
func (r *refusals) summary(now time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastTime.IsZero() {
		r.lastTime = now
	}
	period := now.Sub(r.lastTime)
	if period < summaryEvery {
		return ""
	}
	type count struct{ status, n int }
	var counts []count
	sum := 0
	for i := range r.total {
		t := r.total[i].Load()
		if d := int(t - r.logged[i]); d > 0 {
			counts = append(counts, count{400 + i, d})
			sum += d
		}
		r.logged[i] = t
	}
	r.lastTime = now
	h := r.handshakes.Load()
	failed := h - r.loggedHandshakes
	r.loggedHandshakes = h
	if sum == 0 && failed == 0 {
		return ""
	}
	if sum == 0 {
		return fmt.Sprintf("failed %d TLS handshakes in the last %v, the last from %s", failed, period.Round(time.Second), r.lastHandshake)
	}
	// A handful of statuses at most: insertion sort, most first.
	for i := 1; i < len(counts); i++ {
		for j := i; j > 0 && counts[j].n > counts[j-1].n; j-- {
			counts[j], counts[j-1] = counts[j-1], counts[j]
		}
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%d×%d", c.status, c.n)
	}
	line := fmt.Sprintf("refused %d requests in the last %v: %s", sum, period.Round(time.Second), strings.Join(parts, ", "))
	if failed > 0 {
		line += fmt.Sprintf("; failed %d TLS handshakes, the last from %s", failed, r.lastHandshake)
	}
	return line
}

// write writes slowpeer_http_requests_refused_total{code}, a series for
// every status that was answered at least once.
func (r *refusals) write(w io.Writer) {
	writeFamilyHeader(w, refusedFamily, "counter", "Requests answered with a 4xx status, by status.")
	for i := range r.total {
		if n := r.total[i].Load(); n > 0 {
			fmt.Fprintf(w, "%s{code=\"%d\"} %d\n", refusedFamily, 400+i, n)
		}
	}
	if n := r.handshakes.Load(); n > 0 {
		writeFamily(w, handshakesFamily, "counter", "TLS handshakes that failed.", n)
	}
}

const handshakesFamily = "slowpeer_tls_handshakes_failed_total"

// handshakeErrorPrefix begins net/http's line for a failed TLS handshake.
const handshakeErrorPrefix = "http: TLS handshake error from "

// serverErrors is the writer of the http.Server's ErrorLog: a failed TLS
// handshake, one line each from net/http, is counted for Step's summary
// instead (a scan or a client with the wrong certificate would otherwise
// write a line each); other lines go to the log at Warn.
type serverErrors struct {
	log     *slog.Logger
	refused *refusals
}

func (e serverErrors) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	if why, ok := strings.CutPrefix(line, handshakeErrorPrefix); ok {
		e.refused.handshakeFailed(why)
	} else {
		e.log.Warn(line)
	}
	return len(p), nil
}

// nodeEvents collects the DataNodes that registered (or came back) between
// two Steps, for one log line per Step instead of one per node. Safe for
// concurrent use; the zero value is ready.
type nodeEvents struct {
	mu    sync.Mutex
	names []string // the first maxNamesLogged
	n     int
}

// maxNamesLogged is how many node ids one summary line names.
const maxNamesLogged = 10

func (e *nodeEvents) add(node string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.names) < maxNamesLogged {
		e.names = append(e.names, node)
	}
	e.n++
}

// take returns what was collected and starts afresh.
func (e *nodeEvents) take() (names []string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	names, n = e.names, e.n
	e.names, e.n = nil, 0
	return names, n
}

// logNodes logs one line for n nodes, naming at most maxNamesLogged of
// them.
func logNodes(log *slog.Logger, level slog.Level, msg string, names []string, n int, attrs ...slog.Attr) {
	if n == 0 {
		return
	}
	if len(names) > maxNamesLogged {
		names = names[:maxNamesLogged]
	}
	attrs = append(attrs, slog.Int("count", n), slog.String("nodes", strings.Join(names, " ")))
	if n > len(names) {
		attrs = append(attrs, slog.Int("unnamed", n-len(names)))
	}
	log.LogAttrs(context.Background(), level, msg, attrs...)
}
