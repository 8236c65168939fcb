package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// judge looks at the service's slow sets once: the slow node is found
// when it is in the slow set of nodes (for a pair-rate fault: when the
// link between it and its peer is in the slow set of links), what alerts
// and moves work. judge returns its entry's kind and pairs, and whether
// the fast path confirmed it, or "" while it is not in. Every other node
// in the slow set of nodes, and every link in the slow set of links but
// one of the slow node's, is a false positive. judge notes when the slow
// node had its first reporter in the tracker.
func (d *demo) judge(now time.Time, top []reports.SlowNode) (kind string, pairs int, fast bool) {
	expected := func(node string) bool { return node != "" && (node == d.slowID || node == d.peerID) }
	for _, n := range top {
		if n.Node == d.slowID && d.firstSeen == 0 {
			d.firstSeen = d.since()
		}
	}
	nodes, links := d.srv.SlowSets(now)
	for _, e := range nodes {
		switch {
		case e.Node == d.slowID && d.peerID == "":
			kind, pairs = e.Kind, e.Pairs
		case expected(e.Node):
			// A bad pair's end: not the fault's kind, not a false positive.
		default:
			d.falsePositive(e.Node, fmt.Sprintf("entered the slow set as %s from %d pairs, %.2f ms against %.2f ms",
				e.Kind, e.Pairs, e.LatencyMs, e.MedianMs))
		}
	}
	for _, e := range links {
		switch {
		case d.peerID != "" && expected(e.Node) && expected(e.Peer):
			kind, pairs = e.Kind, e.Pairs
		case e.Node == d.slowID || e.Peer == d.slowID:
			// A slow node's link to one of its peers: no false positive.
		default:
			for _, n := range []string{e.Node, e.Peer} {
				if !expected(n) {
					d.falsePositive(n, fmt.Sprintf("its link %s to %s entered the slow set of links as %s", e.Node, e.Peer, e.Kind))
				}
			}
		}
	}
	if d.slowID == "" || kind == "" {
		return "", 0, false
	}
	for _, v := range d.srv.Suspects(now) {
		if v.State == suspect.Confirmed && expected(v.Node) && (d.peerID == "" || expected(v.Peer)) {
			fast = true
			if pairs == 0 { // admitted by the fast path: the reporters that opened it
				pairs = v.Evidence.Reporters
			}
		}
	}
	return kind, pairs, fast
}

// falsePositive notes that node counts as found though nothing was
// injected there, and says so on the demo's log the first time.
func (d *demo) falsePositive(node, why string) {
	if d.falsePos[node] {
		return
	}
	d.falsePos[node] = true
	fmt.Fprintf(d.events, "demo: false positive after %v: %s %s\n", d.since(), node, why)
	d.writeCells(d.events)
}

// findingSummary is one line naming the diagnosis's findings.
func findingSummary(fs []diagnosis.Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Node + " " + string(f.Kind)
		if f.Peer != "" {
			parts[i] += " to " + f.Peer
		}
		if f.Rack != "" {
			parts[i] += " rack " + f.Rack
		}
	}
	return strings.Join(parts, ", ")
}

// Result is what "demo -json" prints (DESIGN.md, "demo -fault").
//
// TimeToDetectSeconds is when the slow node entered the slow set (for a
// disk fault: when its slow volume was reported for a report interval),
// and Kind its kind there. Reporters is, once found, the pairs its
// slow-set entry rests on (for a link, 2 directions at most), before that
// the peers that report the slow node to the tracker.
type Result struct {
	Injected            *Injected `json:"injected"`
	Found               bool      `json:"found"`
	TimeToDetectSeconds *float64  `json:"timeToDetectSeconds"`
	Reporters           int       `json:"reporters"`
	Kind                *string   `json:"kind"`
	// Disk is the slow volume's directory, for a disk fault once found.
	Disk           *string  `json:"disk,omitempty"`
	FalsePositives []string `json:"falsePositives"`
}

type Injected struct {
	Node  string `json:"node"`
	Fault string `json:"fault"`
}

// result assembles the demo's result from what watch saw.
func (d *demo) result() Result {
	r := Result{FalsePositives: []string{}}
	for n := range d.falsePos {
		r.FalsePositives = append(r.FalsePositives, n)
	}
	slices.Sort(r.FalsePositives)
	if d.slowID == "" {
		return r
	}
	r.Injected = &Injected{Node: d.slowID, Fault: d.cfg.Fault.String()}
	for _, n := range d.top() {
		if n.Node == d.slowID {
			r.Reporters = len(n.Reporters)
		}
	}
	if d.found > 0 {
		r.Reporters = d.reporters
		r.Found = true
		s := d.found.Seconds()
		r.TimeToDetectSeconds = &s
		kind := d.kind
		r.Kind = &kind
		if d.disks != nil {
			r.Disk = &d.disks.slow
		}
	}
	return r
}

// writeJSON prints the result as one line of JSON.
func (d *demo) writeJSON(w io.Writer) error {
	b, err := json.Marshal(d.result())
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
