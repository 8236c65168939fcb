package namenode

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// The health paths: /healthz answers 200 "ok" while the service serves
// (the agent's has the same answer), /readyz 200 "ok" once it has its
// state and 503 while it restores it. Neither asks for the token: they
// say nothing but that.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// BeginRestore marks the Server as restoring its state until StartState
// returns: /readyz answers 503, and every other route (but /healthz)
// answers 503 {"error": ...} with Retry-After, so that nothing reads the
// service empty and no heartbeat lands before the state it would merge
// with. Call it before Serve when StartState runs beside Serve.
func (s *Server) BeginRestore() { s.restoring.Store(true) }

// Ready reports whether the Server has its state (see BeginRestore).
func (s *Server) Ready() bool { return !s.restoring.Load() }

// isHealthPath reports whether path is /healthz or /readyz.
func isHealthPath(path string) bool { return path == HealthzPath || path == ReadyzPath }

// waitRestore answers 503 to every request but the health paths while
// the Server restores its state.
func (s *Server) waitRestore(c *gin.Context) {
	if !s.restoring.Load() || isHealthPath(c.Request.URL.Path) {
		return
	}
	c.Header("Retry-After", "1")
	s.fail(c, http.StatusServiceUnavailable, "not ready: restoring the state of a replica or of the state file")
}

// healthz handles GET /healthz.
func (s *Server) healthz(c *gin.Context) {
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte("ok\n"))
}

// readyz handles GET /readyz.
func (s *Server) readyz(c *gin.Context) {
	if !s.Ready() {
		s.fail(c, http.StatusServiceUnavailable, "not ready: restoring the state of a replica or of the state file")
		return
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte("ok\n"))
}
