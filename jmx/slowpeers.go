package jmx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
)

// Attributes of NameNodeStatusBean.
const (
	// SlowPeersReport is the attribute that holds a NameNode's slow-peer
	// report: a JSON string (ParseSlowPeersReport), or null while
	// dfs.datanode.peer.stats.enabled is false.
	SlowPeersReport = "SlowPeersReport"
	// SlowDisksReport is the attribute that holds a NameNode's slow-disk
	// report: a JSON string (ParseSlowDisksReport), or null while no disk is
	// slow or disk statistics are off.
	SlowDisksReport = "SlowDisksReport"
)

// SlowNode is one entry of a NameNode's SlowPeersReport: a node reported
// slow and what each reporting node said of it.
type SlowNode struct {
	// Node is the slow node's id, "host:port".
	Node string
	// Reporters are the nodes that reported it, in the NameNode's order.
	Reporters []Reporter
}

// Reporter is what one reporting node said of a slow node, in
// milliseconds. A figure is nil when the NameNode did not send it: every
// figure before HDFS-16582, the median, MAD and upper limit before
// HDFS-16595, a null Double, or a Double that is NaN or infinite.
type Reporter struct {
	// Node is the reporting node's id, "host:port".
	Node string
	// LatencyMs is ReportedLatency, the reporter's average latency to the
	// slow node.
	LatencyMs *float64
	// MedianMs is MedianLatency, the median of the reporter's peers.
	MedianMs *float64
	// MADMs is MadLatency, their median absolute deviation (× 1.4826).
	MADMs *float64
	// UpperLimitMs is UpperLimitLatency, the latency a peer had to exceed.
	UpperLimitMs *float64
}

// ParseSlowPeersReport reads the SlowPeersReport string of a NameNode's
// NameNodeStatusBean in each shape Hadoop has written
// (SlowPeerTracker.getJson):
//
//   - 2.8 to 3.3, SlowPeerTracker.ReportForJson:
//     [{"SlowNode":"h:p","ReportingNodes":["h:p",...]}];
//   - after HDFS-16582, SlowPeerJsonReport:
//     [{"SlowNode":"h:p","SlowPeerLatencyWithReportingNodes":
//     [{"ReportingNode":"h:p","ReportedLatency":ms}]}];
//   - after HDFS-16595 (3.4, trunk): the same with MedianLatency, MadLatency and
//     UpperLimitLatency, which slowpeer's own /slowpeers also writes.
//
// Members it does not know are ignored, so that a later Hadoop's additions
// do not stop it. A figure that is null or absent, or that Jackson wrote
// as the string "NaN", "Infinity" or "-Infinity", is nil. It is an error
// when s is not a JSON array of objects, an entry has no SlowNode, both
// ReportingNodes and SlowPeerLatencyWithReportingNodes or no reporter, a
// node id is not host:port, or a figure is negative or not a number.
func ParseSlowPeersReport(s string) ([]SlowNode, error) {
	var entries []map[string]json.RawMessage
	if err := decodeOne(s, &entries); err != nil {
		return nil, fmt.Errorf("parse %s: %w", SlowPeersReport, err)
	}
	if entries == nil {
		return nil, fmt.Errorf("parse %s: not a JSON array", SlowPeersReport)
	}
	nodes := make([]SlowNode, 0, len(entries))
	for i, e := range entries {
		n, err := parseSlowNode(e)
		if err != nil {
			if n.Node != "" {
				return nil, fmt.Errorf("parse %s: entry %d (%s): %w", SlowPeersReport, i, n.Node, err)
			}
			return nil, fmt.Errorf("parse %s: entry %d: %w", SlowPeersReport, i, err)
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func parseSlowNode(e map[string]json.RawMessage) (SlowNode, error) {
	var n SlowNode
	if e == nil {
		return n, errors.New("not an object")
	}
	if err := nodeID(e["SlowNode"], "SlowNode", &n.Node); err != nil {
		return n, err
	}
	plain, havePlain := e["ReportingNodes"]
	rich, haveRich := e["SlowPeerLatencyWithReportingNodes"]
	switch {
	case havePlain && haveRich:
		return n, errors.New("both ReportingNodes and SlowPeerLatencyWithReportingNodes")
	case havePlain:
		var ids []json.RawMessage
		if err := decodeOne(string(plain), &ids); err != nil || ids == nil {
			return n, errors.New("ReportingNodes is not an array")
		}
		for j, id := range ids {
			var r Reporter
			if err := nodeID(id, fmt.Sprintf("ReportingNodes[%d]", j), &r.Node); err != nil {
				return n, err
			}
			n.Reporters = append(n.Reporters, r)
		}
	case haveRich:
		var reps []map[string]json.RawMessage
		if err := decodeOne(string(rich), &reps); err != nil || reps == nil {
			return n, errors.New("SlowPeerLatencyWithReportingNodes is not an array of objects")
		}
		for j, m := range reps {
			r, err := parseReporter(m)
			if err != nil {
				return n, fmt.Errorf("reporter %d: %w", j, err)
			}
			n.Reporters = append(n.Reporters, r)
		}
	}
	if len(n.Reporters) == 0 {
		return n, errors.New("no reporting nodes")
	}
	return n, nil
}

func parseReporter(m map[string]json.RawMessage) (Reporter, error) {
	var r Reporter
	if m == nil {
		return r, errors.New("not an object")
	}
	if err := nodeID(m["ReportingNode"], "ReportingNode", &r.Node); err != nil {
		return r, err
	}
	for _, f := range []struct {
		name string
		dst  **float64
	}{{"ReportedLatency", &r.LatencyMs}, {"MedianLatency", &r.MedianMs}, {"MadLatency", &r.MADMs}, {"UpperLimitLatency", &r.UpperLimitMs}} {
		v, err := figure(m[f.name])
		if err != nil {
			return r, fmt.Errorf("%s (%s): %w", f.name, r.Node, err)
		}
		*f.dst = v
	}
	return r, nil
}

// figure reads one Double of Hadoop's: nil when raw is absent, null, or
// Jackson's quoted "NaN", "Infinity" or "-Infinity".
func figure(raw json.RawMessage) (*float64, error) {
	var v any
	if raw == nil {
		return nil, nil
	}
	if err := decodeOne(string(raw), &v); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if v == "NaN" || v == "Infinity" || v == "-Infinity" {
			return nil, nil
		}
		return nil, fmt.Errorf("%q is not a number", v)
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s is not a finite number", v)
		}
		if f < 0 {
			return nil, fmt.Errorf("%s ms is negative", v)
		}
		return &f, nil
	default:
		return nil, fmt.Errorf("%s, not a number", kind(v))
	}
}

// nodeID reads a "host:port" string into dst; what names it for errors.
func nodeID(raw json.RawMessage, what string, dst *string) error {
	var s string
	if raw == nil {
		return fmt.Errorf("no %s", what)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%s is not a string", what)
	}
	host, port, err := net.SplitHostPort(s)
	n, perr := strconv.ParseUint(port, 10, 16)
	if err != nil || host == "" || perr != nil || n == 0 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%s %q is not host:port", what, s)
	}
	*dst = s
	return nil
}

// decodeOne decodes the one JSON value of s into v, numbers as
// json.Number; data after it is an error.
func decodeOne(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}
