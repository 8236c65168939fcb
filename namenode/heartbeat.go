package namenode

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// The reasons a heartbeat is refused before or besides parsing, beyond
// those of reports.ParseHeartbeat; all label
// slowpeer_heartbeats_rejected_total.
const (
	reasonTooLarge        = "too_large"        // body over MaxHeartbeatBytes
	reasonUnauthorized    = "unauthorized"     // missing or wrong bearer token
	reasonUnsupportedType = "unsupported_type" // Content-Type not application/json

	// The limits (limits.go); answered 429.
	reasonLimitDataNodes = "limit_datanodes"       // MaxDataNodes
	reasonLimitEntries   = "limit_tracker_entries" // MaxTrackerEntries
	reasonLimitSlowNodes = "limit_slow_nodes"      // MaxSlowNodes
	// reasonLimitDiskEntries (disks.go): MaxDiskEntries.
)

var rejectReasons = append(reports.RejectReasons(), reasonTooLarge, reasonUnauthorized,
	reasonUnsupportedType, reasonLimitDataNodes, reasonLimitEntries, reasonLimitSlowNodes, reasonLimitDiskEntries)

// statusOf is the status of a refusal by reason; 400 for the others.
var statusOf = map[string]int{
	reasonTooLarge:        http.StatusRequestEntityTooLarge,
	reasonUnauthorized:    http.StatusUnauthorized,
	reasonUnsupportedType: http.StatusUnsupportedMediaType,
	reasonLimitDataNodes:  http.StatusTooManyRequests,
	reasonLimitEntries:    http.StatusTooManyRequests,
	reasonLimitSlowNodes:  http.StatusTooManyRequests,
}

var (
	replySlow    = []byte(`{"slow":true}`)
	replyNotSlow = []byte(`{"slow":false}`)
)

// bodyBuffers holds read buffers for heartbeat bodies. Buffers that grew
// past keepBufferBytes are dropped, not kept.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const keepBufferBytes = 64 << 10

// heartbeat handles POST /v1/heartbeat: it wants application/json (so
// that a web page cannot post one cross-site without a preflight), reads
// at most MaxHeartbeatBytes, parses and validates the whole body, checks
// the limits, and only then registers the sender and applies its report;
// a refused heartbeat changes nothing. It hands the heartbeat's
// recentLatencies to the fast path (suspects.go), and answers whether the
// sender is itself reported slow (HDFS-16320), with the probe requests
// the fast path has for it.
//
// Reference: DatanodeManager.handleHeartbeat (the DataNode's state, then
// its slow-peer report).
func (s *Server) heartbeat(c *gin.Context) {
	r := c.Request
	if !isJSON(r.Header.Get("Content-Type")) {
		s.refuse(c, &reports.RejectError{Reason: reasonUnsupportedType,
			Message: fmt.Sprintf("Content-Type %q, want application/json", reports.Clip(r.Header.Get("Content-Type")))})
		return
	}
	if r.ContentLength > MaxHeartbeatBytes {
		s.refuse(c, &reports.RejectError{Reason: reasonTooLarge, Message: tooLargeMsg})
		return
	}
	buf := bodyBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= keepBufferBytes {
			bodyBuffers.Put(buf)
		}
	}()
	if _, err := buf.ReadFrom(http.MaxBytesReader(c.Writer, r.Body, MaxHeartbeatBytes)); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			s.refuse(c, &reports.RejectError{Reason: reasonTooLarge, Message: tooLargeMsg})
			return
		}
		s.refuse(c, &reports.RejectError{Reason: reports.ReasonMalformed, Message: fmt.Sprintf("read body: %v", err)})
		return
	}
	hb, err := reports.ParseHeartbeat(buf.Bytes())
	if err != nil {
		s.refuse(c, err)
		return
	}

	now := s.now()
	revived, err := s.apply(now, hb)
	if err != nil {
		s.refuse(c, err)
		return
	}
	if revived {
		s.registered.add(hb.Node)
	}
	// The diagnosis takes the row at its next run: a heartbeat never
	// waits for a fit.
	if hb.PeerLatencies != nil {
		s.diag.offer(now, hb.Node, hb.PeerLatencies)
	} else if len(hb.SlowPeers) > 0 {
		s.diag.sawRawReport(now)
	}
	s.metrics.heartbeats.Inc()
	reply := s.observeRecent(now, hb, s.slowSet.Contains(hb.Node))
	c.Data(http.StatusOK, "application/json", reply)
}

// apply registers the sender of hb and applies its report at now, or,
// when a limit would be passed, does neither and returns a *RejectError
// naming the limit's key.
func (s *Server) apply(now time.Time, hb reports.Heartbeat) (revived bool, err error) {
	// Most heartbeats carry no report and come from a known node: they
	// change its row only, in one step of the table, with no limit to
	// check; s.ingest, which every other heartbeat waits for, is not
	// taken (at 10 000 agents, thousands of them queued behind it).
	if !hb.HasReport() && !s.disks.carries(hb) {
		if revived, known := s.nodes.Refresh(now, hb.Node, hb.HTTPAddress); known {
			return revived, nil
		}
	}
	s.ingest.Lock()
	defer s.ingest.Unlock()
	if !s.nodes.Admits(hb.Node) {
		return false, limitError(reasonLimitDataNodes, MaxDataNodesKey, s.cfg.MaxDataNodes, "DataNodes")
	}
	if err := s.disks.admit(hb); err != nil {
		return false, err
	}
	if hb.HasReport() {
		if err := s.tracker.Report(now, hb.Node, hb.SlowPeers); err != nil {
			le, ok := errors.AsType[*tracker.LimitError](err)
			switch {
			case !ok:
				panic("BUG: namenode: tracker.Report failed with " + err.Error())
			case le.Limit == tracker.LimitEntries:
				return false, limitError(reasonLimitEntries, MaxTrackerEntriesKey, le.Max, "slow-peer entries")
			default:
				return false, limitError(reasonLimitSlowNodes, MaxSlowNodesKey, le.Max, "slow nodes")
			}
		}
	}
	s.disks.report(now, hb)
	// Admits under s.ingest: the table has room.
	revived, err = s.nodes.Heartbeat(now, hb.Node)
	if err == nil {
		s.nodes.SetHTTPAddress(hb.Node, hb.HTTPAddress)
	}
	return revived, err
}

// limitError is the refusal of a heartbeat that would pass a limit.
func limitError(reason, key string, max int, what string) error {
	return &reports.RejectError{Reason: reason,
		Message: fmt.Sprintf("limit reached: the service holds at most %d %s (%s)", max, what, key)}
}

// isJSON reports whether a Content-Type is application/json, with or
// without parameters (charset=utf-8).
func isJSON(contentType string) bool {
	if contentType == "application/json" { // what the agent sends
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

var tooLargeMsg = fmt.Sprintf("heartbeat body larger than %d bytes", MaxHeartbeatBytes)

// refuse answers a heartbeat that is not applied, counting it by reason.
func (s *Server) refuse(c *gin.Context, err error) {
	reason := reports.ReasonMalformed
	if re, ok := errors.AsType[*reports.RejectError](err); ok {
		reason = re.Reason
	}
	status, ok := statusOf[reason]
	if !ok {
		status = http.StatusBadRequest
	}
	s.metrics.reject(reason)
	s.fail(c, status, "heartbeat: "+err.Error())
}
