package namenode

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
)

// The reasons a heartbeat is refused before or besides parsing, beyond
// those of reports.ParseHeartbeat; all label
// slowpeer_heartbeats_rejected_total.
const (
	reasonTooLarge     = "too_large"    // body over MaxHeartbeatBytes
	reasonUnauthorized = "unauthorized" // missing or wrong bearer token
)

var rejectReasons = append(reports.RejectReasons(), reasonTooLarge, reasonUnauthorized)

var (
	replySlow    = []byte(`{"slow":true}`)
	replyNotSlow = []byte(`{"slow":false}`)
)

// bodyBuffers holds read buffers for heartbeat bodies. Buffers that grew
// past keepBufferBytes are dropped, not kept.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const keepBufferBytes = 64 << 10

// heartbeat handles POST /v1/heartbeat: it reads at most MaxHeartbeatBytes,
// parses and validates the whole body, and only then registers the sender
// and applies its report; a refused heartbeat changes nothing. It answers
// whether the sender is itself reported slow (HDFS-16320).
//
// Reference: DatanodeManager.handleHeartbeat (the DataNode's state, then
// its slow-peer report).
func (s *Server) heartbeat(c *gin.Context) {
	r := c.Request
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
	if revived := s.nodes.Heartbeat(now, hb.Node); revived {
		s.log.Info("datanode is live", slog.String("node", hb.Node))
	}
	if hb.HasReport() {
		s.tracker.Report(now, hb.Node, hb.SlowPeers)
	}
	s.metrics.heartbeats.Inc()
	reply := replyNotSlow
	s.updateSlowSet(now)
	if s.slowSet.Contains(hb.Node) {
		reply = replySlow
	}
	c.Data(http.StatusOK, "application/json", reply)
}

var tooLargeMsg = fmt.Sprintf("heartbeat body larger than %d bytes", MaxHeartbeatBytes)

// refuse answers a heartbeat that is not applied, counting it by reason.
func (s *Server) refuse(c *gin.Context, err error) {
	reason, status := reports.ReasonMalformed, http.StatusBadRequest
	if re, ok := errors.AsType[*reports.RejectError](err); ok {
		reason = re.Reason
	}
	if reason == reasonTooLarge {
		status = http.StatusRequestEntityTooLarge
	}
	s.metrics.reject(reason)
	s.fail(c, status, "heartbeat: "+err.Error())
}
