package namenode

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// slowPeers handles GET /slowpeers?top=N: the top N slow nodes in Hadoop
// trunk's SlowPeerJsonReport shape, N defaulting to MaxNodesToReport.
func (s *Server) slowPeers(c *gin.Context) {
	n := s.cfg.MaxNodesToReport
	if q, ok := c.GetQuery("top"); ok {
		var err error
		if n, err = parseTop(q); err != nil {
			s.fail(c, http.StatusBadRequest, err.Error())
			return
		}
	}
	c.JSON(http.StatusOK, s.tracker.Top(s.now(), n))
}

// parseTop reads the N of ?top=N: a whole number in [1, MaxTop].
func parseTop(q string) (int, error) {
	n, err := strconv.Atoi(q)
	if err != nil || n < 1 || n > MaxTop {
		return 0, fmt.Errorf("top: want a whole number from 1 to %d, got %q", MaxTop, truncate([]byte(q)))
	}
	return n, nil
}

// dataNodeJSON is one element of the /v1/datanodes answer.
type dataNodeJSON struct {
	Node  string `json:"node"`
	State State  `json:"state"`
	// LastHeartbeatMs is the arrival of the newest heartbeat, in
	// milliseconds since the Unix epoch.
	LastHeartbeatMs int64 `json:"lastHeartbeat"`
}

// dataNodes handles GET /v1/datanodes: every node with its state, sorted
// by node id.
func (s *Server) dataNodes(c *gin.Context) {
	list := s.nodes.List(s.now())
	out := make([]dataNodeJSON, len(list))
	for i, n := range list {
		out[i] = dataNodeJSON{Node: n.Node, State: n.State, LastHeartbeatMs: n.LastHeartbeat.UnixMilli()}
	}
	c.JSON(http.StatusOK, out)
}

// truncate keeps error messages one short line.
func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
