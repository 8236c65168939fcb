package namenode

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
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
	// hide a link 100 times slower than its peers' (docs/configuration.md).
	DefaultSlowNodesFloor = 250 * time.Microsecond

	// TopologyFileKey is Hadoop's table of hosts and racks ("host rack"
	// lines, TableMapping); the binary reads it into Config.Topology.
	TopologyFileKey = "net.topology.table.file.name"
)

// DiagnoseEvery is how often the service runs the diagnosis (Serve
// does) while it is cheap; in between /v1/slownodes, /metrics,
// the slow set and the dashboard give the last one. A diagnosis of 1 000
// nodes takes about 16 ms, of 10 000 nodes with 50 peers each about
// 0.16 s, and after one that took d Serve waits at least
// DiagnoseSpacing × d (8 s at 10 000 nodes: at most 2 % of a core).
const DiagnoseEvery = 2 * time.Second

// DiagnoseSpacing is how many times its own duration Serve leaves
// after a diagnosis before the next (DiagnoseEvery). A large cluster's
// fit is the longest thing the service computes and one CPU burst; its
// cells change only when a reporter reports (every report interval, 5
// minutes by default), so a fit every few seconds only repeats it, and
// each one holds one of the cores that heartbeats are answered on.
const DiagnoseSpacing = 50

// findingsFamily counts the findings of the last diagnosis by kind.
const findingsFamily = "slowpeer_slow_node_findings"

// kinds are the label values of findingsFamily: every kind, always.
var kinds = []diagnosis.Kind{diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both, diagnosis.Link, diagnosis.Rack}

// Diagnose is the diagnosis's periodic work at now: it applies the
// peerLatencies the heartbeats handed over since the last call (each
// replacing its sender's row), drops the cells no longer valid, fits the
// matrix, feeds the slow sets with the findings (slowset.go) and
// publishes the findings, which readers get until the next call. It
// returns the findings; the slice is shared, do not modify it.
// Serve calls it every DiagnoseEvery; calls are serialised, and a
// heartbeat never waits for one.
func (s *Server) Diagnose(now time.Time) []diagnosis.Finding {
	d := s.diag
	d.stepMu.Lock()
	defer d.stepMu.Unlock()
	d.apply()
	d.releaseStale(now)
	findings := d.matrix.Diagnose(now) // expires what is old first
	nodes := s.feedSlowSets(now, findings, d.unmeasured(now, s.tracker))
	cells, cellsAt := d.publishCells(now)
	d.last.Store(&diagnosisResult{at: now, findings: findings, nodes: nodes, cells: cells, cellsAt: cellsAt})
	return findings
}

// runDiagnosis calls Diagnose every DiagnoseEvery, or after DiagnoseSpacing
// times the last one's duration when that is longer, until ctx is done,
// then returns nil. Serve runs it; call it yourself only when you serve
// Handler with a server of your own.
func (s *Server) runDiagnosis(ctx context.Context) error {
	var next time.Time // the earliest start of the next diagnosis
	every(ctx, DiagnoseEvery, func() {
		if time.Now().Before(next) {
			return
		}
		s.heavy.do(ctx, func() {
			start := time.Now()
			s.Diagnose(s.now())
			next = start.Add(DiagnoseSpacing * time.Since(start))
		})
	})
	return nil
}

// The diagnosis's rows (diagnoser.go, seats.go).
const (
	reportersRowsFamily = "slowpeer_diagnosis_reporters"
	rowsEvictedFamily   = "slowpeer_diagnosis_rows_evicted_total"
)

// writeMetrics writes findingsFamily from the last diagnosis, and the
// families of the rows.
func (d *diagnoser) writeMetrics(w io.Writer) {
	d.mu.Lock()
	rows := d.seats.len()
	d.mu.Unlock()
	writeFamily(w, reportersRowsFamily, "gauge",
		"Reporters holding a row of the diagnosis matrix (slowpeer.max.diagnosis.reporters at most).", rows)
	writeFamily(w, rowsEvictedFamily, "counter",
		"Rows of the diagnosis matrix given to a reporter live for longer than their holder.", d.evicted.Load())

	fs := d.current().findings
	writeFamilyHeader(w, findingsFamily, "gauge",
		"Findings of the last diagnosis of the reporter x peer latency matrix (GET /v1/slownodes), by kind.")
	for _, k := range kinds {
		n := 0
		for _, f := range fs {
			if f.Kind == k {
				n++
			}
		}
		fmt.Fprintf(w, "%s{kind=%s} %d\n", findingsFamily, reports.QuoteLabel(string(k)), n)
	}
}

// SlowNodeFindings returns the last diagnosis, as GET /v1/slownodes gives
// it (at most DiagnoseEvery old while the Server serves; empty before the
// first Diagnose). The slice is the caller's.
func (s *Server) SlowNodeFindings() []diagnosis.Finding {
	return slices.Clone(s.diag.current().findings)
}

// slowNodes handles GET /v1/slownodes.
func (s *Server) slowNodes(c *gin.Context) {
	c.JSON(http.StatusOK, s.diag.current().findings)
}

// newDiagnosis sets up the diagnosis of a new Server and its metrics.
func (s *Server) newDiagnosis() error {
	d, err := newDiagnoser(s.cfg, s.log)
	if err != nil {
		return fmt.Errorf("namenode: %w", err)
	}
	s.diag = d
	s.AddMetrics(d.writeMetrics)
	return nil
}

// PeerLatencyCells returns at most max (max <= 0: all) cells of the
// reporter × peer matrix as a recent Diagnose saw them, what the agents'
// peerLatencies said, for a heatmap, and when that Diagnose ran: while
// it is the same, so are the cells. They are gathered only for readers:
// the first call after a while returns none, and asks the next Diagnose
// for them. The slice is shared: do not modify it.
func (s *Server) PeerLatencyCells(max int) (cells []diagnosis.Cell, at time.Time) {
	d := s.diag
	d.cellsMax.Store(int64(max))
	d.cellsAsked.Add(1)
	r := d.current()
	cells = r.cells
	if max > 0 && len(cells) > max {
		cells = cells[:max]
	}
	return cells, r.cellsAt
}
