package namenode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
)

// ForgetPath forgets a DataNode at once (POST {"node": "h:p"},
// application/json; the bearer token when one is set).
const ForgetPath = DataNodesPath + "/forget"

// maxForgetBytes bounds the body of POST /v1/datanodes/forget.
const maxForgetBytes = 4 << 10

// ErrUnknownDataNode is ForgetDataNode's error for a node the service
// holds nothing of.
var ErrUnknownDataNode = errors.New("no such DataNode")

// ForgetDataNode drops everything the service holds of node at now: its
// row of the DataNode table, its slow-peer report and those that name it,
// its measurements and those of it in the diagnosis, its place in the
// slow sets (logged) and its history; then, with a state file
// (RunStateFile), the file is saved at once, so that a restart does not
// bring the node back. It returns the state the node had (StateOf; ""
// when the table did not list it), ErrUnknownDataNode when the service held
// nothing of it, or the error of the save, after the node is forgotten in
// memory. A node that sends a heartbeat again comes back as a new one.
func (s *Server) ForgetDataNode(now time.Time, node string) (State, error) {
	var was State
	if d, ok := s.nodes.Get(now, node); ok {
		was = s.StateOf(now, d)
	}
	s.ingest.Lock() // no heartbeat of node registers it half-way
	listed := s.nodes.Remove(node)
	reported := s.tracker.Forget(node) > 0
	s.ingest.Unlock()
	measured := s.diag.forget(node)
	if s.fast.det != nil {
		s.fast.det.Forget(node)
	}
	left := s.dropFromSlowSets(now, func(n string) bool { return n == node }, "forgotten by an operator")
	s.decisions.forget(node)
	if !listed && !reported && !measured && left == 0 {
		return "", ErrUnknownDataNode
	}
	s.log.Info("forgot datanode", slog.String("node", node), slog.String("was", string(was)))
	if save := s.saveState.Load(); save != nil {
		if err := (*save)(); err != nil {
			return was, fmt.Errorf("forgot %s, but a restart may bring it back: %w", node, err)
		}
	}
	return was, nil
}

// forget drops node's row, pending row and cells, and what others
// measured of it, and reports whether there were any.
func (d *diagnoser) forget(node string) bool {
	d.mu.Lock()
	_, pending := d.pending[node]
	delete(d.pending, node)
	d.mu.Unlock()
	d.stepMu.Lock()
	defer d.stepMu.Unlock()
	before := d.matrix.Len()
	d.matrix.ForgetNode(node)
	_, measured := d.measured[node]
	delete(d.measured, node)
	return pending || measured || d.matrix.Len() != before
}

// forgetRequest is the body of POST /v1/datanodes/forget.
type forgetRequest struct {
	Node string `json:"node"`
}

// forgetAnswer is its answer: the node, and the state it had ("" when
// the table did not list it, only reports or measurements named it).
type forgetAnswer struct {
	Node  string `json:"node"`
	State State  `json:"state"`
}

// forget handles POST /v1/datanodes/forget.
func (s *Server) forget(c *gin.Context) {
	r := c.Request
	if !isJSON(r.Header.Get("Content-Type")) {
		s.fail(c, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q, want application/json", reports.Clip(r.Header.Get("Content-Type"))))
		return
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(http.MaxBytesReader(c.Writer, r.Body, maxForgetBytes)); err != nil {
		s.fail(c, http.StatusRequestEntityTooLarge, fmt.Sprintf("forget: body larger than %d bytes", maxForgetBytes))
		return
	}
	dec := json.NewDecoder(&body)
	dec.DisallowUnknownFields()
	var req forgetRequest
	if err := dec.Decode(&req); err != nil {
		s.fail(c, http.StatusBadRequest, `forget: want {"node": "host:port"}: `+err.Error())
		return
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		s.fail(c, http.StatusBadRequest, "forget: data after the JSON object")
		return
	}
	if err := reports.ValidateNode(req.Node); err != nil {
		s.fail(c, http.StatusBadRequest, "forget: "+err.Error())
		return
	}
	was, err := s.ForgetDataNode(s.now(), req.Node)
	switch {
	case errors.Is(err, ErrUnknownDataNode):
		s.fail(c, http.StatusNotFound, fmt.Sprintf("forget: %s: %v", req.Node, err))
	case err != nil:
		s.log.Error("forget datanode", slog.Any("err", err))
		s.fail(c, http.StatusInternalServerError, "forget: "+err.Error())
	default:
		c.JSON(http.StatusOK, forgetAnswer{Node: req.Node, State: was})
	}
}
