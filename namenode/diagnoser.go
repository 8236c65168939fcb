package namenode

import (
	"cmp"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// cellsKeptSteps is how many diagnoses the published cells outlive the
// last reader that asked for them (PeerLatencyCells): a dashboard asks
// every couple of seconds; nobody asking, they are dropped.
const cellsKeptSteps = 5

// diagnoser keeps the reporter × peer matrix the agents' peerLatencies
// fill, and the last diagnosis of it. A reporter has a row only while it
// holds one of the seats (seats.go: at most MaxDiagnosisReporters, the
// least trusted evicted first). Heartbeats hand their rows over with
// offer, which never waits for a fit: the latest row of each reporter
// waits in pending (a newer row replaces one not yet applied, as the
// matrix would replace it: pending holds at most a row per seat). step,
// run by one goroutine at a time, applies the pending rows (telling the
// link confirmer of each), fits and returns what to publish; readers take
// the last publication (last), which is never modified. Safe for
// concurrent use.
type diagnoser struct {
	log      *slog.Logger
	validity time.Duration

	// mu guards pending, seats and gone: a heartbeat holds it for a few
	// map writes.
	mu      sync.Mutex
	pending map[string]pendingRow
	seats   *seats
	gone    []string // reporters whose rows the next step forgets

	// evicted counts the rows given to more trusted reporters.
	evicted atomic.Uint64

	// rawAt is when (unix ns) a heartbeat last brought a slow-peer report
	// without peerLatencies; 0: never. While such a report may be valid,
	// step counts the reports of unmeasured reporters.
	rawAt atomic.Int64
	// cellsAsked counts the readers' asks for cells; cellsMax is the max
	// of the latest ask.
	cellsAsked, cellsMax atomic.Int64

	// stepMu serialises steps; it guards the fields below it.
	stepMu   sync.Mutex
	matrix   *diagnosis.Matrix
	measured map[string]time.Time // reporter → arrival of its last peerLatencies
	// links confirms the Link findings by reports in a row, as the
	// simulator does; nil without hysteresis (Config.SlowSet.EnterAfter
	// 0), where a link enters on one finding.
	links      *diagnosis.LinkConfirmer
	full       bool             // the last row was refused by a full matrix
	asksSeen   int64            // cellsAsked at the last step
	sinceAsked int              // steps since a reader last asked for cells
	cells      []diagnosis.Cell // the last cells published
	cellsAt    time.Time        // when they were gathered

	last atomic.Pointer[diagnosisResult]
}

// pendingRow is a reporter's row handed over by a heartbeat.
type pendingRow struct {
	at        time.Time
	latencies []reports.PeerLatency
}

// diagnosisResult is one publication of the diagnoser: never modified
// once stored.
type diagnosisResult struct {
	at       time.Time
	findings []diagnosis.Finding // non-nil
	// nodes is the evidence that fed the slow set of nodes
	// (diagnosis.Evidence), sorted by name.
	nodes   []tracker.NodeCount
	cells   []diagnosis.Cell // nil unless a reader asked lately
	cellsAt time.Time        // the step that gathered cells
}

// emptyResult is what readers get before the first diagnosis.
var emptyResult = &diagnosisResult{findings: []diagnosis.Finding{}}

// newDiagnoser returns the diagnoser of cfg: cells count for
// ReportValidity, as slow-peer reports do, and so does a link's streak
// of slow reports held by reports without the pair.
func newDiagnoser(cfg Config, log *slog.Logger) (*diagnoser, error) {
	dc := diagnosis.DefaultConfig()
	dc.MaxAge = cfg.ReportValidity()
	dc.FloorMs = float64(cfg.SlowNodesFloor) / float64(time.Millisecond)
	dc.Topology = cfg.Topology
	dc.MaxReporters, dc.MaxPeers = cfg.MaxDiagnosisReporters, cfg.MaxPeerLatencies
	m, err := diagnosis.New(dc)
	if err != nil {
		return nil, err
	}
	d := &diagnoser{log: log, validity: cfg.ReportValidity(), matrix: m,
		pending: make(map[string]pendingRow), seats: newSeats(cfg.MaxDiagnosisReporters),
		measured: make(map[string]time.Time)}
	if cfg.SlowSet.EnterAfter > 0 {
		d.links = diagnosis.NewLinkConfirmer(dc.MinSamples, cfg.ReportValidity())
	}
	return d, nil
}

// admits reports whether offer would take a row of reporter, live since
// since: it holds a seat, one is free, or it is more trusted than the
// least trusted holder.
func (d *diagnoser) admits(reporter string, since time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.seats.admits(reporter, since)
	return ok
}

// offer hands over what reporter, live since since, measured at now; the
// next step applies it, replacing the reporter's row. It returns false,
// changing nothing, when reporter gets no seat (admits).
func (d *diagnoser) offer(now time.Time, reporter string, since time.Time, latencies []reports.PeerLatency) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	evicted, ok := d.seats.take(reporter, since, now)
	if !ok {
		return false
	}
	if evicted != "" {
		delete(d.pending, evicted)
		d.gone = append(d.gone, evicted)
		d.evicted.Add(1)
	}
	d.pending[reporter] = pendingRow{at: now, latencies: latencies}
	return true
}

// died tells the seats of the reporters that were found dead.
func (d *diagnoser) died(nodes []string) {
	if len(nodes) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range nodes {
		d.seats.died(n)
	}
}

// sawRawReport notes that a slow-peer report without peerLatencies
// arrived at now.
func (d *diagnoser) sawRawReport(now time.Time) { d.rawAt.Store(now.UnixNano()) }

// current returns the last publication.
func (d *diagnoser) current() *diagnosisResult {
	if r := d.last.Load(); r != nil {
		return r
	}
	return emptyResult
}

// apply takes the pending rows and applies them to the matrix. The caller
// holds stepMu.
func (d *diagnoser) apply() {
	d.mu.Lock()
	rows, gone := d.pending, d.gone
	d.pending, d.gone = make(map[string]pendingRow, len(rows)), nil
	d.mu.Unlock()
	for _, reporter := range gone {
		d.matrix.Forget(reporter)
		delete(d.measured, reporter)
	}
	// In the order they came, as the heartbeats would have applied them:
	// when the matrix is full, the first ones are in.
	order := make([]string, 0, len(rows))
	for reporter := range rows {
		order = append(order, reporter)
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(rows[a].at.Compare(rows[b].at), strings.Compare(a, b))
	})
	for _, reporter := range order {
		r := rows[reporter]
		d.measured[reporter] = r.at
		d.addRow(reporter, r)
		if d.links != nil {
			d.links.Report(reporter, r.at, r.latencies)
		}
	}
}

// releaseStale frees the seats of reporters whose latest row is no
// longer valid at now, as their cells are not.
func (d *diagnoser) releaseStale(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.seats.stale(now, d.validity) {
		d.seats.release(r)
	}
}

// confirmLinks returns the links that feed the slow set of links at now:
// those of found (diagnosis.Evidence's) without hysteresis, else those the
// link confirmer confirms from findings. The caller holds stepMu, after
// apply.
func (d *diagnoser) confirmLinks(now time.Time, findings []diagnosis.Finding, found []tracker.NodeCount) []tracker.NodeCount {
	if d.links == nil {
		return found
	}
	return d.links.Confirm(now, findings, d.measured)
}

// addRow replaces reporter's row by r, as much of it as the matrix takes.
// The caller holds stepMu.
func (d *diagnoser) addRow(reporter string, r pendingRow) {
	d.matrix.Forget(reporter)
	for _, p := range r.latencies {
		if p.Node == reporter {
			continue
		}
		err := d.matrix.Add(reporter, p.Node, p.LatencyMs, int(min(p.Samples, 1<<31-1)), r.at)
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

// unmeasured counts, for every node that a valid slow-peer report names
// at now, the reporters among its reporters that sent no peerLatencies
// within the report validity. The caller holds stepMu.
func (d *diagnoser) unmeasured(now time.Time, t *tracker.Tracker) []tracker.NodeCount {
	for r, at := range d.measured {
		if now.Sub(at) >= d.validity {
			delete(d.measured, r)
		}
	}
	raw := d.rawAt.Load()
	if raw == 0 || now.Sub(time.Unix(0, raw)) >= d.validity {
		return nil // no report without peerLatencies can be valid
	}
	count := map[string]int{}
	for _, h := range t.Dump(now) {
		if _, ok := d.measured[h.Reporter]; ok {
			continue
		}
		for _, p := range h.SlowPeers {
			count[p.Node]++
		}
	}
	out := make([]tracker.NodeCount, 0, len(count))
	for n, k := range count {
		out = append(out, tracker.NodeCount{Node: n, Reporters: k})
	}
	return out
}

// publishCells returns the cells to publish with the diagnosis at now:
// fresh when a reader asked since the last step, the last ones for a
// while after, none once nobody asked for cellsKeptSteps steps. The
// caller holds stepMu.
func (d *diagnoser) publishCells(now time.Time) ([]diagnosis.Cell, time.Time) {
	if asks := d.cellsAsked.Load(); asks != d.asksSeen {
		d.asksSeen, d.sinceAsked = asks, 0
		d.cells, d.cellsAt = d.matrix.Cells(now, int(d.cellsMax.Load())), now
		return d.cells, d.cellsAt
	}
	if d.sinceAsked++; d.sinceAsked >= cellsKeptSteps {
		d.cells, d.cellsAt = nil, time.Time{}
	}
	return d.cells, d.cellsAt
}
