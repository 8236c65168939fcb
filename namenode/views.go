package namenode

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
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
		return 0, fmt.Errorf("top: want a whole number from 1 to %d, got %q", MaxTop, reports.Clip(q))
	}
	return n, nil
}

// dataNodeJSON is one element of the /v1/datanodes answer.
type dataNodeJSON struct {
	Node string `json:"node"`
	// State is live, stale, dead or excluded (StateOf).
	State State `json:"state"`
	// LastHeartbeatMs is the arrival of the newest heartbeat, in
	// milliseconds since the Unix epoch.
	LastHeartbeatMs int64 `json:"lastHeartbeat"`
	// HTTPAddress is the agent's HTTP port (its /jmx and /metrics), as
	// its heartbeats announce it; absent without one.
	HTTPAddress string `json:"httpAddress,omitempty"`
}

// dataNodes handles GET /v1/datanodes[?limit=N][&after=ID]: the nodes
// with their state (StateOf) and HTTP address, sorted by node id, as the JSON array of DESIGN.md.
// Without limit it is every node (at most MaxDataNodes). With limit, at
// most N nodes whose id sorts after ID; when more follow, a Link header
// (RFC 8288, rel="next") gives the URL of the next page, so the body keeps
// its shape.
func (s *Server) dataNodes(c *gin.Context) {
	limit := 0
	if q, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > s.cfg.MaxDataNodes {
			s.fail(c, http.StatusBadRequest, fmt.Sprintf("limit: want a whole number from 1 to %d, got %q", s.cfg.MaxDataNodes, reports.Clip(q)))
			return
		}
		limit = n
	}
	after := c.Query("after")
	now := s.now()
	list, more := s.nodes.Page(now, after, limit)
	if more {
		next := url.Values{"limit": {strconv.Itoa(limit)}, "after": {list[len(list)-1].Node}}
		c.Header("Link", fmt.Sprintf("<%s?%s>; rel=\"next\"", DataNodesPath, next.Encode()))
	}
	out := make([]dataNodeJSON, len(list))
	for i, n := range list {
		out[i] = dataNodeJSON{Node: n.Node, State: s.StateOf(now, n), LastHeartbeatMs: n.LastHeartbeat.UnixMilli(),
			HTTPAddress: n.HTTPAddress}
	}
	c.JSON(http.StatusOK, out)
}
