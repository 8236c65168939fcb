package namenode

import (
	"context"
	"net/http"
	"runtime"

	"github.com/gin-gonic/gin"
)

// heavyWork bounds the Server's work that holds a core for milliseconds to
// tens of them at 10 000 DataNodes — /jmx (2 MB of LiveNodes), the whole
// DataNode list, /v1/state, /metrics, /v1/suspects, a fit of the
// diagnosis, a step of the fast path, the state file — to
// GOMAXPROCS − 1 at once (at least one), so that heartbeats, which take
// microseconds, always find a core that none of it holds. Two such reads
// on the two cores of a small machine held every heartbeat behind them
// until the Go scheduler preempted one, 10 ms later: the tail of the
// heartbeats' latency. It is the idea of Hadoop's service RPC port
// (dfs.namenode.servicerpc-address), which keeps the DataNodes' calls
// apart from the clients'. The work waits its turn; nothing is refused.
type heavyWork chan struct{}

func newHeavyWork() heavyWork { return make(heavyWork, max(1, runtime.GOMAXPROCS(0)-1)) }

// do runs f once it has a turn, and reports false, without running f, if
// ctx ends first.
func (h heavyWork) do(ctx context.Context, f func()) bool {
	select {
	case h <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-h }()
	f()
	return true
}

// heavyRoute is a route's handler that runs as heavy work; a request whose
// client left while it waited is dropped (it is the last handler: nothing
// runs after it to abort).
func (s *Server) heavyRoute(h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) { s.heavy.do(c.Request.Context(), func() { h(c) }) }
}

// Heavy returns h run as the Server's heavy work, one of a bounded number
// at once beside its own long reads, so that heartbeats keep a core: for
// a handler of Handle that takes milliseconds (a page drawn from every
// DataNode). It must not wrap a handler that streams: a stream would hold
// its turn for as long as it lasts.
func (s *Server) Heavy(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.heavy.do(r.Context(), func() { h.ServeHTTP(w, r) })
	})
}
