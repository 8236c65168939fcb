package namenode

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

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
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	if err := s.writeTop(c.Writer, s.now(), n); err != nil {
		s.log.Debug("write /slowpeers", slog.Any("err", err)) // the reader went away
	}
}

// writeTop writes the top n slow nodes at now as Tracker.Top's JSON
// array, the same bytes, statePage nodes at a time: ?top=100000 of a
// full tracker holds a page of them, not the 350 MB of the whole answer.
func (s *Server) writeTop(w io.Writer, now time.Time, n int) error {
	top, _ := s.tracker.TopCounts(now, n)
	names := make([]string, len(top))
	for i, t := range top {
		names[i] = t.Node
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteByte('[')
	slow := newElements(bw)
	for from := 0; from < len(names); from += statePage {
		for _, sn := range s.tracker.Reported(now, names[from:min(from+statePage, len(names))]) {
			if err := slow.add(sn); err != nil {
				return err
			}
		}
	}
	bw.WriteByte(']')
	return bw.Flush()
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
	// Without limit, every node, but taken and written a page at a time.
	list, more := s.nodes.Page(now, after, cmp.Or(limit, statePage))
	if more && limit > 0 {
		next := url.Values{"limit": {strconv.Itoa(limit)}, "after": {list[len(list)-1].Node}}
		c.Header("Link", fmt.Sprintf("<%s?%s>; rel=\"next\"", DataNodesPath, next.Encode()))
	}
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Status(http.StatusOK)
	if err := s.writeDataNodes(c.Writer, now, list, more && limit == 0); err != nil {
		s.log.Debug("write /v1/datanodes", slog.Any("err", err)) // the reader went away
	}
}

// writeDataNodes writes the nodes of page, and when more is set the
// nodes after it, a page of statePage at a time, as the JSON array of
// /v1/datanodes.
func (s *Server) writeDataNodes(w io.Writer, now time.Time, page []DataNode, more bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteByte('[')
	nodes := newElements(bw)
	for {
		for _, n := range page {
			if err := nodes.add(dataNodeJSON{Node: n.Node, State: s.StateOf(now, n),
				LastHeartbeatMs: n.LastHeartbeat.UnixMilli(), HTTPAddress: n.HTTPAddress}); err != nil {
				return err
			}
		}
		if !more {
			break
		}
		page, more = s.nodes.Page(now, page[len(page)-1].Node, statePage)
	}
	bw.WriteByte(']')
	return bw.Flush()
}
