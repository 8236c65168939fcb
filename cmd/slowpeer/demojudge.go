package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// judge looks at the tracker's top and the diagnosis once. The diagnosis
// names the slow node when it has a finding of it with at least
// demoQuorum measured pairs behind it (for a pair-rate fault: a link
// between it and its peer); judge returns that finding's kind and pairs,
// or "" when there is none. Every other node that the diagnosis names, or
// that demoQuorum peers report to the tracker, is a false positive. judge
// notes when the slow node had its first reporter in the tracker.
func (d *demo) judge(top []reports.SlowNode, findings []diagnosis.Finding) (kind string, reporters int) {
	expected := func(node string) bool { return node != "" && (node == d.slowID || node == d.peerID) }
	for _, n := range top {
		if n.Node == d.slowID {
			if d.firstSeen == 0 {
				d.firstSeen = d.since()
			}
		} else if !expected(n.Node) && len(n.Reporters) >= demoQuorum {
			d.falsePositive(n.Node, fmt.Sprintf("reported to the tracker by %d peers", len(n.Reporters)))
		}
	}
	for _, f := range findings {
		switch {
		case f.Kind == diagnosis.Link && d.peerID != "" && expected(f.Node) && expected(f.Peer):
			kind, reporters = string(f.Kind), f.Reporters
		case f.Kind != diagnosis.Link && f.Node == d.slowID && d.peerID == "":
			kind, reporters = string(f.Kind), f.Reporters
		case f.Kind == diagnosis.Link && expected(f.Node) && expected(f.Peer):
			// A slow node's link to one of its peers: no false positive.
		default:
			for _, n := range []string{f.Node, f.Peer} {
				if n != "" && !expected(n) {
					d.falsePositive(n, fmt.Sprintf("diagnosed %s (%s), %.2f ms against a median of %.2f ms",
						f.Kind, findingSummary([]diagnosis.Finding{f}), f.LatencyMs, f.MedianMs))
				}
			}
		}
	}
	if d.slowID == "" || kind == "" || d.peerID == "" && reporters < demoQuorum {
		return "", 0
	}
	return kind, reporters
}

// judgedBothWays tells whether the diagnosis can judge the slow node in
// both directions from cells: as a sender (its own row) and as a receiver
// (its peers' cells of it), each with enough pairs of enough samples.
// Until then which way it is slow is not known: a host slow both ways
// whose own row has not come yet (a slow host's agent is slow to gather
// the packets of its first report) shows as a slow receiver.
func (d *demo) judgedBothWays(cells []diagnosis.Cell) bool {
	var row, column int
	for _, c := range cells {
		if c.Samples < diagnosis.DefaultMinSamples {
			continue
		}
		if c.Reporter == d.slowID {
			row++
		}
		if c.Peer == d.slowID {
			column++
		}
	}
	return row >= diagnosis.DefaultMinPairs && column >= diagnosis.DefaultMinPairs
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

// demoResult is what "demo -json" prints (DESIGN.md, "demo -fault").
//
// Reporters is, once found, the measured pairs the diagnosis's finding
// rests on (diagnosis.Finding.Reporters; 2 directions at most for a link),
// before that the peers that report the slow node to the tracker.
type demoResult struct {
	Injected            *demoInjected `json:"injected"`
	Found               bool          `json:"found"`
	TimeToDetectSeconds *float64      `json:"timeToDetectSeconds"`
	Reporters           int           `json:"reporters"`
	Kind                *string       `json:"kind"`
	// Disk is the slow volume's directory, for a disk fault once found.
	Disk           *string  `json:"disk,omitempty"`
	FalsePositives []string `json:"falsePositives"`
}

type demoInjected struct {
	Node  string `json:"node"`
	Fault string `json:"fault"`
}

// result assembles the demo's result from what watch saw.
func (d *demo) result() demoResult {
	r := demoResult{FalsePositives: []string{}}
	for n := range d.falsePos {
		r.FalsePositives = append(r.FalsePositives, n)
	}
	slices.Sort(r.FalsePositives)
	if d.slowID == "" {
		return r
	}
	r.Injected = &demoInjected{Node: d.slowID, Fault: d.flags.fault.String()}
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
