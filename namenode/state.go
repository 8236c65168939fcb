package namenode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// StatePath is where a replica serves its state to another replica that
// starts (GET, JSON; the bearer token is required whenever one is set).
const StatePath = "/v1/state"

// StateFormat names the state document, so that a file of another program
// is refused rather than read as an empty state.
const StateFormat = "slowpeer.namenode.state"

// StateVersion is the version of the state document this package writes
// and reads.
const StateVersion = 1

// MaxStateBytes bounds a state document read from a replica or a file.
const MaxStateBytes = 256 << 20

// Snapshot is what a replica knows that a restart would otherwise lose: the
// valid slow-peer reports with their arrival times and the DataNode table.
// Times are wall-clock times of the replica that received the heartbeat;
// replicas' clocks are assumed to agree within a small fraction of the
// report validity (NTP), since a skew of d moves expiry by d.
type Snapshot struct {
	// SavedAt is when the state was taken.
	SavedAt time.Time
	// Reports are the valid reports, sorted by reporter.
	Reports []tracker.Held
	// DataNodes are every DataNode known, with its last heartbeat.
	DataNodes []DataNode
	// Open is true for the state of a service without an auth token,
	// where anyone who reached it could post heartbeats: a service that
	// has a token imports none of it (ImportState), so that what a
	// token-less flood posted does not come back once a token is set.
	Open bool
}

// stateJSON is the wire and file form of Snapshot.
type stateJSON struct {
	Format    string          `json:"format"`
	Version   int             `json:"version"`
	SavedAt   time.Time       `json:"savedAt"`
	Reports   []heldJSON      `json:"reports"`
	DataNodes []nodeStateJSON `json:"datanodes"`
	Open      bool            `json:"open,omitempty"`
}

type heldJSON struct {
	Reporter  string             `json:"reporter"`
	Arrival   time.Time          `json:"arrival"`
	SlowPeers []reports.SlowPeer `json:"slowPeers"`
}

type nodeStateJSON struct {
	Node          string    `json:"node"`
	LastHeartbeat time.Time `json:"lastHeartbeat"`
}

// ExportState returns the Server's state at now.
func (s *Server) ExportState(now time.Time) Snapshot {
	return Snapshot{SavedAt: now, Reports: s.tracker.Dump(now), DataNodes: s.nodes.List(now), Open: s.cfg.AuthToken == ""}
}

// ImportState merges st into the Server at now: a report replaces the one
// held for its reporter only when it arrived later, and a DataNode's last
// heartbeat only moves forward (Tracker.Restore, DataNodes.Restore). No
// time is taken as later than now, and what would take the Server past
// its limits is left out, as it would be refused if posted. A service
// with an auth token imports nothing of an open state (Snapshot.Open),
// and says so. It returns how many reports and DataNodes it applied.
func (s *Server) ImportState(now time.Time, st Snapshot) (reports, nodes int) {
	if st.Open && s.cfg.AuthToken != "" {
		s.log.Warn("state taken while the service ran open (no auth token): not imported, what anyone could post then stays out",
			slog.Time("savedAt", st.SavedAt), slog.Int("reports", len(st.Reports)), slog.Int("datanodes", len(st.DataNodes)))
		return 0, 0
	}
	defer s.changes.Add(1)
	reports = s.tracker.Restore(now, st.Reports)
	for _, n := range st.DataNodes {
		if s.nodes.Restore(now, n.Node, n.LastHeartbeat) {
			nodes++
		}
	}
	return reports, nodes
}

// Restore sets node's last heartbeat to last unless a later one is known,
// and reports whether it did. A time after now (another replica's clock
// runs ahead, or a document made up) is taken as now, and a node new to
// the table is taken only while the table has room (NewDataNodes'
// maxNodes), as a heartbeat would be. A node already dead at now counts
// as reported dead, so Check does not announce an old death again.
func (t *DataNodes) Restore(now time.Time, node string, last time.Time) bool {
	last = last.Round(0)
	if now = now.Round(0); last.After(now) {
		last = now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.nodes[node]
	if ok && !last.After(n.last) {
		return false
	}
	if !ok && t.max > 0 && len(t.nodes) >= t.max {
		return false
	}
	if !ok {
		n = &dataNode{}
		t.nodes[node] = n
		t.sorted.Store(nil)
	}
	if !ok || t.isDead(now, n.last) {
		n.since = last // its run began no later than that
	}
	n.last, n.reportedDead = last, t.isDead(now, last)
	return true
}

// MarshalState writes st as the JSON state document.
func MarshalState(st Snapshot) ([]byte, error) {
	doc := stateJSON{Format: StateFormat, Version: StateVersion, SavedAt: st.SavedAt.Round(0).UTC(), Open: st.Open,
		Reports: make([]heldJSON, len(st.Reports)), DataNodes: make([]nodeStateJSON, len(st.DataNodes))}
	for i, h := range st.Reports {
		doc.Reports[i] = heldJSON{Reporter: h.Reporter, Arrival: h.Arrival.Round(0).UTC(), SlowPeers: h.SlowPeers}
	}
	for i, n := range st.DataNodes {
		doc.DataNodes[i] = nodeStateJSON{Node: n.Node, LastHeartbeat: n.LastHeartbeat.Round(0).UTC()}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return b, nil
}

// ParseState reads a state document: it must name StateFormat and
// StateVersion, and every report and DataNode must be well formed (the
// rules of reports.Heartbeat.Validate, a report with at least one peer, a
// time set). It returns the first problem found.
func ParseState(data []byte) (Snapshot, error) {
	if len(data) > MaxStateBytes {
		return Snapshot{}, fmt.Errorf("state: %d bytes, at most %d", len(data), MaxStateBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc stateJSON
	if err := dec.Decode(&doc); err != nil {
		return Snapshot{}, fmt.Errorf("state: not a state document: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Snapshot{}, errors.New("state: data after the document")
	}
	if doc.Format != StateFormat {
		return Snapshot{}, fmt.Errorf("state: format %q, want %q", reports.Clip(doc.Format), StateFormat)
	}
	if doc.Version != StateVersion {
		return Snapshot{}, fmt.Errorf("state: version %d, this program reads %d", doc.Version, StateVersion)
	}
	st := Snapshot{SavedAt: doc.SavedAt, Open: doc.Open, Reports: make([]tracker.Held, len(doc.Reports)),
		DataNodes: make([]DataNode, len(doc.DataNodes))}
	seen := make(map[string]bool, len(doc.Reports))
	for i, h := range doc.Reports {
		hb := reports.Heartbeat{Node: h.Reporter, SlowPeers: h.SlowPeers}
		switch err := hb.Validate(); {
		case err != nil:
			return Snapshot{}, fmt.Errorf("state: reports[%d]: %w", i, err)
		case len(h.SlowPeers) == 0:
			return Snapshot{}, fmt.Errorf("state: reports[%d]: no slow peers", i)
		case h.Arrival.IsZero():
			return Snapshot{}, fmt.Errorf("state: reports[%d]: no arrival time", i)
		case seen[h.Reporter]:
			return Snapshot{}, fmt.Errorf("state: reports[%d]: reporter %q named twice", i, h.Reporter)
		}
		seen[h.Reporter] = true
		st.Reports[i] = tracker.Held{Reporter: h.Reporter, Arrival: h.Arrival, SlowPeers: h.SlowPeers}
	}
	for i, n := range doc.DataNodes {
		if err := reports.ValidateNode(n.Node); err != nil {
			return Snapshot{}, fmt.Errorf("state: datanodes[%d]: %w", i, err)
		}
		if n.LastHeartbeat.IsZero() {
			return Snapshot{}, fmt.Errorf("state: datanodes[%d]: no last heartbeat", i)
		}
		st.DataNodes[i] = DataNode{Node: n.Node, LastHeartbeat: n.LastHeartbeat}
	}
	return st, nil
}
