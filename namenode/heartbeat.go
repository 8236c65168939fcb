package namenode

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
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
	// MaxPeerLatencies, MaxDiagnosisReporters
	reasonLimitPeerLatencies = "limit_peer_latencies"
	reasonLimitReporters     = "limit_diagnosis_reporters"
	// reasonLimitDiskEntries (disks.go): MaxDiskEntries.
)

var rejectReasons = append(reports.RejectReasons(), reasonTooLarge, reasonUnauthorized,
	reasonUnsupportedType, reasonUnsupportedEncoding, reasonLimitDataNodes, reasonLimitEntries, reasonLimitSlowNodes, reasonLimitDiskEntries,
	reasonLimitPeerLatencies, reasonLimitReporters)

// statusOf is the status of a refusal by reason; 400 for the others.
var statusOf = map[string]int{
	reasonTooLarge:        http.StatusRequestEntityTooLarge,
	reasonUnauthorized:    http.StatusUnauthorized,
	reasonUnsupportedType: http.StatusUnsupportedMediaType,

	reasonUnsupportedEncoding: http.StatusUnsupportedMediaType,
	reasonLimitDataNodes:      http.StatusTooManyRequests,
	reasonLimitEntries:        http.StatusTooManyRequests,
	reasonLimitSlowNodes:      http.StatusTooManyRequests,

	reasonLimitPeerLatencies: http.StatusTooManyRequests,
	reasonLimitReporters:     http.StatusTooManyRequests,
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
// at most MaxHeartbeatBytes (inflated, too, when it comes compressed:
// inflate.go), parses and validates the whole body, checks
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
	c.Header("Accept-Encoding", acceptEncoding) // on every answer, refusals too (inflate.go)
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
	if err := readBody(buf, c.Writer, r); err != nil {
		s.refuse(c, err)
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
	if revived || hb.HasReport() {
		s.changes.Add(1)
	}
	if hb.PeerLatencies == nil && len(hb.SlowPeers) > 0 {
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
	if !hb.HasReport() && hb.PeerLatencies == nil && !s.disks.carries(hb) {
		if revived, known := s.nodes.Refresh(now, hb.Node, hb.HTTPAddress); known {
			return revived, nil
		}
	}
	s.ingest.Lock()
	defer s.ingest.Unlock()
	if !s.nodes.Admits(hb.Node) {
		return false, limitError(reasonLimitDataNodes, MaxDataNodesKey, s.cfg.MaxDataNodes, "DataNodes")
	}
	seated, since, err := s.seat(now, hb)
	if err != nil {
		return false, err
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
	// The diagnosis takes the row at its next run: a heartbeat never
	// waits for a fit. Admitted under s.ingest, the seat is there: only
	// heartbeats take seats, and steps only free them.
	if seated && !s.diag.offer(now, hb.Node, since, hb.PeerLatencies) {
		s.log.Error("BUG: a row of the diagnosis admitted under the ingest lock was refused", slog.String("node", hb.Node))
	}
	return revived, err
}

// seat checks hb's peerLatencies, when it has them, against the limits at
// now: more than MaxPeerLatencies, or a reporter that gets no row of the
// matrix (seats.go), is a *RejectError for 429. A row belongs to a
// DataNode of the table (the caller checked that the table admits hb's
// sender), trusted by how long it has been live: a node new to the table,
// or dead until this heartbeat, is live since now, the least trusted of
// all, and gets a row only while one is free. It reports whether the row
// is to be offered, and since when the reporter is live. The caller
// holds s.ingest.
func (s *Server) seat(now time.Time, hb reports.Heartbeat) (ok bool, since time.Time, err error) {
	if hb.PeerLatencies == nil {
		return false, since, nil
	}
	if len(hb.PeerLatencies) > s.cfg.MaxPeerLatencies {
		return false, since, &reports.RejectError{Reason: reasonLimitPeerLatencies,
			Message: fmt.Sprintf("limit reached: %d peerLatencies, at most %d (%s)", len(hb.PeerLatencies),
				s.cfg.MaxPeerLatencies, MaxPeerLatenciesKey)}
	}
	since, live := s.nodes.LiveSince(now, hb.Node)
	if !live {
		since = now
	}
	if !s.diag.admits(hb.Node, since) {
		return false, since, limitError(reasonLimitReporters, MaxDiagnosisReportersKey, s.cfg.MaxDiagnosisReporters,
			"reporters in the diagnosis, all live for longer than this one")
	}
	return true, since, nil
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
