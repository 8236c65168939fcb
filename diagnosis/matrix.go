package diagnosis

import (
	"errors"
	"fmt"
	"math"
	"net"
	"time"
)

// ErrFull is returned, wrapped, by Add when the matrix already holds
// Config.MaxReporters reporters and the cell comes from a new one.
var ErrFull = errors.New("matrix full")

// Matrix is the reporter × peer latency matrix: for each reporter (a
// sender), the newest latency it measured to each of its peers (the
// receivers). Construct it with New; the zero value is not usable. A
// Matrix is not safe for concurrent use: a caller that shares one guards
// it with its own lock. Holding that lock across Diagnose (a fraction of
// a second at 10 000 nodes) is fine: agents send their peer latencies
// once a report interval, a few a second in such a cluster.
//
// It never reads the clock: every time is passed in, and all of them
// should come from one clock, at most 290 years apart.
type Matrix struct {
	cfg Config

	epoch   time.Time // the first time passed in; instants count from it
	started bool      // epoch is set
	nodes   names     // reporters and peers, interned
	rowOf   []int32   // by node id: index in rows, or -1
	rows    []row     // one per reporter, in no order

	scratch fit // Diagnose's buffers, kept between calls
}

// row is what one reporter measured.
type row struct {
	reporter int32
	cells    []cell
}

// cell is one measured pair: 24 bytes.
type cell struct {
	peer      int32
	samples   int32         // saturates at math.MaxInt32
	latencyMs float64       // as given
	at        time.Duration // since the Matrix's epoch
}

// New returns an empty Matrix, or the error of cfg.Validate.
func New(cfg Config) (*Matrix, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new diagnosis matrix: %w", err)
	}
	return &Matrix{cfg: cfg, nodes: newNames()}, nil
}

// Config returns the configuration the Matrix was made with.
func (m *Matrix) Config() Config { return m.cfg }

// Len returns the number of cells held, valid or not.
func (m *Matrix) Len() int {
	n := 0
	for _, r := range m.rows {
		n += len(r.cells)
	}
	return n
}

// Reporters returns the number of reporters held.
func (m *Matrix) Reporters() int { return len(m.rows) }

// Add records that reporter measured latencyMs, on average over samples
// packets, to peer, as of at. It replaces the cell of the same pair unless
// that one is newer. When reporter already has Config.MaxPeers cells, a new
// peer replaces its oldest cell. A cell from a new reporter when the matrix
// holds Config.MaxReporters is refused with ErrFull. Node ids must be
// "host:port" and differ; latencyMs must be finite and ≥ 0, samples ≥ 0.
func (m *Matrix) Add(reporter, peer string, latencyMs float64, samples int, at time.Time) error {
	if err := validateCell(reporter, peer, latencyMs, samples); err != nil {
		return fmt.Errorf("add latency of %s to %s: %w", reporter, peer, err)
	}
	rid, known := m.nodes.id(reporter)
	if !known || m.rowOf[rid] < 0 {
		if len(m.rows) >= m.cfg.MaxReporters {
			return fmt.Errorf("add latency of %s to %s: %w: %d reporters", reporter, peer, ErrFull, len(m.rows))
		}
		rid = m.intern(reporter)
		m.rowOf[rid] = int32(len(m.rows))
		m.rows = append(m.rows, row{reporter: rid})
	}
	c := cell{peer: -1, samples: int32(min(samples, math.MaxInt32)), latencyMs: latencyMs, at: m.instant(at)}
	r := &m.rows[m.rowOf[rid]]
	if pid, ok := m.nodes.id(peer); ok {
		for i := range r.cells {
			if r.cells[i].peer == pid {
				if r.cells[i].at <= c.at {
					c.peer = pid
					r.cells[i] = c
				}
				return nil
			}
		}
	}
	c.peer = m.intern(peer)
	if len(r.cells) < m.cfg.MaxPeers {
		r.cells = append(r.cells, c)
		return nil
	}
	oldest := 0
	for i := range r.cells {
		if r.cells[i].at < r.cells[oldest].at {
			oldest = i
		}
	}
	m.release(r.cells[oldest].peer)
	r.cells[oldest] = c
	return nil
}

// Expire deletes the cells that are no longer valid at now, and the
// reporters left without cells.
func (m *Matrix) Expire(now time.Time) {
	if !m.started {
		return
	}
	t := m.instant(now)
	m.dropCells(func(c cell) bool { return !m.valid(c, t) })
}

// dropCells deletes the cells for which drop is true, and the rows left
// without cells.
func (m *Matrix) dropCells(drop func(cell) bool) {
	for i := 0; i < len(m.rows); {
		r := &m.rows[i]
		kept := r.cells[:0]
		for _, c := range r.cells {
			if drop(c) {
				m.release(c.peer)
			} else {
				kept = append(kept, c)
			}
		}
		clear(r.cells[len(kept):])
		r.cells = kept
		if len(kept) > 0 {
			i++
			continue
		}
		m.dropRow(i)
	}
}

// Forget deletes every cell reporter measured: when its agent is gone, or
// when its next report should replace what it said rather than add to it.
func (m *Matrix) Forget(reporter string) {
	id, ok := m.nodes.id(reporter)
	if !ok || m.rowOf[id] < 0 {
		return
	}
	i := int(m.rowOf[id])
	for _, c := range m.rows[i].cells {
		m.release(c.peer)
	}
	m.dropRow(i)
}

// ForgetNode deletes every cell of node: its row, and what every
// reporter measured of it, as when an operator forgets a node that is
// gone for good.
func (m *Matrix) ForgetNode(node string) {
	m.Forget(node)
	if id, ok := m.nodes.id(node); ok {
		m.dropCells(func(c cell) bool { return c.peer == id })
	}
}

// dropRow removes row i, whose cells are released, and moves the last row
// into its place.
func (m *Matrix) dropRow(i int) {
	r := m.rows[i].reporter
	m.rowOf[r] = -1
	m.release(r)
	last := len(m.rows) - 1
	if i != last {
		m.rows[i] = m.rows[last]
		m.rowOf[m.rows[i].reporter] = int32(i)
	}
	m.rows[last] = row{}
	m.rows = m.rows[:last]
}

// valid reports whether c counts at instant t: t − at < MaxAge.
func (m *Matrix) valid(c cell, t time.Duration) bool {
	return t-c.at < m.cfg.MaxAge
}

// instant converts at to the Matrix's time line, fixing the epoch on the
// first call. Durations saturate, so far-off times stay ordered.
func (m *Matrix) instant(at time.Time) time.Duration {
	if !m.started {
		m.epoch, m.started = at, true
	}
	return at.Sub(m.epoch)
}

// intern returns the id of name, adding it, and counts one more use.
func (m *Matrix) intern(name string) int32 {
	id := m.nodes.intern(name)
	for int(id) >= len(m.rowOf) {
		m.rowOf = append(m.rowOf, -1)
	}
	return id
}

// release counts one use of id less, forgetting the name at zero.
func (m *Matrix) release(id int32) { m.nodes.release(id) }

func validateCell(reporter, peer string, latencyMs float64, samples int) error {
	for _, id := range []string{reporter, peer} {
		if host, port, err := net.SplitHostPort(id); err != nil || host == "" || port == "" {
			return fmt.Errorf("node id %q is not host:port", id)
		}
	}
	switch {
	case reporter == peer:
		return errors.New("a node cannot measure itself")
	case math.IsNaN(latencyMs) || math.IsInf(latencyMs, 0) || latencyMs < 0:
		return fmt.Errorf("latency %v ms is not a finite number ≥ 0", latencyMs)
	case samples < 0:
		return fmt.Errorf("negative sample count %d", samples)
	}
	return nil
}
