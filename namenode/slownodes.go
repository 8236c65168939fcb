package namenode

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// SlowNodesPath serves the diagnosis: which node is slow, and how
// (DESIGN.md, "GET /v1/slownodes").
const SlowNodesPath = "/v1/slownodes"

// The service's keys of the diagnosis, with their defaults.
const (
	// SlowNodesFloorKey is the latency, in milliseconds, that a slow node
	// or link of the diagnosis must exceed whatever the cluster median.
	SlowNodesFloorKey = "slowpeer.slownodes.floor.ms"
	// DefaultSlowNodesFloor is 0.25 ms: a 16 KiB probe packet at 500
	// Mbit/s (the agent's slowpeer.probe.min.rate), below which no pair
	// of a healthy LAN is slow; the 3 × median rule still applies above
	// it. Hadoop's 5 ms (dfs.datanode.slowpeer.low.threshold.ms) would
	// hide a link 100 times slower than its peers' (README).
	DefaultSlowNodesFloor = 250 * time.Microsecond

	// TopologyFileKey is Hadoop's table of hosts and racks ("host rack"
	// lines, TableMapping); the binary reads it into Config.Topology.
	TopologyFileKey = "net.topology.table.file.name"
)

// DiagnoseEvery is how often at most the service runs the diagnosis; in
// between /v1/slownodes and /metrics give the last one. A diagnosis of
// 1 000 nodes takes about 16 ms.
const DiagnoseEvery = 2 * time.Second

// findingsFamily counts the findings of the last diagnosis by kind.
const findingsFamily = "slowpeer_slow_node_findings"

// kinds are the label values of findingsFamily: every kind, always.
var kinds = []diagnosis.Kind{diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both, diagnosis.Link, diagnosis.Rack}

// diagnoser keeps the reporter × peer matrix the agents' peerLatencies
// fill, and the last diagnosis of it. It is safe for concurrent use.
type diagnoser struct {
	log *slog.Logger

	mu       sync.Mutex
	matrix   *diagnosis.Matrix   // guarded by mu
	findings []diagnosis.Finding // the last diagnosis, never modified
	at       time.Time           // when it ran; zero before the first
	full     bool                // the last report was refused by a full matrix
}

// newDiagnoser returns the diagnoser of cfg: cells count for
// ReportValidity, as slow-peer reports do.
func newDiagnoser(cfg Config, log *slog.Logger) (*diagnoser, error) {
	dc := diagnosis.DefaultConfig()
	dc.MaxAge = cfg.ReportValidity()
	dc.FloorMs = float64(cfg.SlowNodesFloor) / float64(time.Millisecond)
	dc.Topology = cfg.Topology
	m, err := diagnosis.New(dc)
	if err != nil {
		return nil, err
	}
	return &diagnoser{log: log, matrix: m}, nil
}

// report replaces what reporter measured by latencies, as of now.
func (d *diagnoser) report(now time.Time, reporter string, latencies []reports.PeerLatency) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.matrix.Forget(reporter)
	for _, p := range latencies {
		if p.Node == reporter {
			continue
		}
		err := d.matrix.Add(reporter, p.Node, p.LatencyMs, int(min(p.Samples, 1<<31-1)), now)
		if errors.Is(err, diagnosis.ErrFull) {
			if !d.full {
				d.log.Warn("diagnosis matrix full: peer latencies of new reporters are dropped", slog.String("node", reporter))
			}
			d.full = true
			return
		}
	}
	d.full = false
}

// current returns the diagnosis at now, run afresh when the last one is
// DiagnoseEvery old. The slice is shared: do not modify it.
func (d *diagnoser) current(now time.Time) []diagnosis.Finding {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at.IsZero() || now.Sub(d.at) >= DiagnoseEvery || now.Before(d.at) {
		d.findings = d.matrix.Diagnose(now) // expires what is old first
		if d.findings == nil {
			d.findings = []diagnosis.Finding{}
		}
		d.at = now
	}
	return d.findings
}

// expire drops the cells that are no longer valid at now, so that the
// rows of agents that went away do not stay while nobody asks for the
// diagnosis.
func (d *diagnoser) expire(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.matrix.Expire(now)
}

// writeMetrics writes findingsFamily from the current diagnosis.
func (d *diagnoser) writeMetrics(w io.Writer, now time.Time) {
	fs := d.current(now)
	writeFamilyHeader(w, findingsFamily, "gauge",
		"Findings of the last diagnosis of the reporter x peer latency matrix (GET /v1/slownodes), by kind.")
	for _, k := range kinds {
		n := 0
		for _, f := range fs {
			if f.Kind == k {
				n++
			}
		}
		fmt.Fprintf(w, "%s{kind=%s} %d\n", findingsFamily, labelValue(string(k)), n)
	}
}

// SlowNodeFindings returns the diagnosis at now, as GET /v1/slownodes
// gives it: run at most every DiagnoseEvery, from the peerLatencies the
// agents sent. The slice is the caller's.
func (s *Server) SlowNodeFindings(now time.Time) []diagnosis.Finding {
	return slices.Clone(s.diag.current(now))
}

// slowNodes handles GET /v1/slownodes.
func (s *Server) slowNodes(c *gin.Context) {
	c.JSON(http.StatusOK, s.diag.current(s.now()))
}

// newDiagnosis sets up the diagnosis of a new Server and its metrics.
func (s *Server) newDiagnosis() error {
	d, err := newDiagnoser(s.cfg, s.log)
	if err != nil {
		return fmt.Errorf("namenode: %w", err)
	}
	s.diag = d
	s.AddMetrics(func(w io.Writer) { d.writeMetrics(w, s.now()) })
	return nil
}

// PeerLatencyCells returns the cells of the reporter × peer matrix valid at
// now, at most max (max <= 0: all): what the agents' peerLatencies said,
// for a heatmap.
func (s *Server) PeerLatencyCells(now time.Time, max int) []diagnosis.Cell {
	s.diag.mu.Lock()
	defer s.diag.mu.Unlock()
	return s.diag.matrix.Cells(now, max)
}
