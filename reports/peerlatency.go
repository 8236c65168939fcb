package reports

import (
	"errors"
	"fmt"
	"strconv"
)

// MaxPeerLatencies is the largest number of entries of a heartbeat's
// peerLatencies, as MaxSlowPeers bounds its slowPeers.
const MaxPeerLatencies = 10000

// PeerLatency is what a DataNode measured of one peer it sends packets
// to, over its rolling windows: the input of its outlier test, sent so
// that the service can look at the whole reporter × peer matrix
// (DESIGN.md, "peerLatencies").
type PeerLatency struct {
	// Node is the peer's id, "host:port".
	Node string `json:"node"`
	// LatencyMs is the average time from writing a packet to the peer
	// until its acknowledgement.
	LatencyMs float64 `json:"latencyMs"`
	// Samples is the number of packets behind the average.
	Samples int64 `json:"samples"`
}

func (p PeerLatency) validate() error {
	if err := ValidateNode(p.Node); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if err := ValidateLatency(p.LatencyMs); err != nil {
		return fmt.Errorf("latencyMs: %w", err)
	}
	if p.Samples < 0 {
		return fmt.Errorf("samples: negative count %d", p.Samples)
	}
	return nil
}

// validatePeerLatencies checks the peerLatencies of a heartbeat: at most
// MaxPeerLatencies, each valid, none named twice.
func validatePeerLatencies(ps []PeerLatency) error {
	if len(ps) > MaxPeerLatencies {
		return fmt.Errorf("peerLatencies: %d entries, at most %d allowed", len(ps), MaxPeerLatencies)
	}
	seen := make(map[string]struct{}, len(ps))
	for i, p := range ps {
		if err := p.validate(); err != nil {
			return fmt.Errorf("peerLatencies[%d]: %w", i, err)
		}
		if _, dup := seen[p.Node]; dup {
			return fmt.Errorf("peerLatencies[%d]: node %q named twice", i, p.Node)
		}
		seen[p.Node] = struct{}{}
	}
	return nil
}

// peerLatencies reads the peerLatencies value: null, or an array of
// objects with exactly node, latencyMs and samples.
func (sc *scanner) peerLatencies() ([]PeerLatency, error) {
	out := make([]PeerLatency, 0, 16)
	null, err := sc.array("peerLatencies", MaxPeerLatencies, ReasonTooManyPeers, func(i int) error {
		p, err := sc.peerLatency(i)
		out = append(out, p)
		return err
	})
	if null || err != nil {
		return nil, err
	}
	return out, nil
}

func (sc *scanner) peerLatency(i int) (PeerLatency, error) {
	var p PeerLatency
	var node, latency, samples bool
	what := fieldPath{peer: i, array: "peerLatencies"}
	err := sc.object(what, func(key []byte) error {
		var seen *bool
		field := what
		switch string(key) {
		case "node":
			seen, field.field = &node, "node"
		case "latencyMs":
			seen, field.field = &latency, "latencyMs"
		case "samples":
			seen, field.field = &samples, "samples"
		default:
			return &RejectError{ReasonUnknownField, fmt.Sprintf("%s: unknown field %q", what, key)}
		}
		if *seen {
			return malformed("%s: field %s given twice", what, key)
		}
		*seen = true
		var err error
		switch string(key) {
		case "node":
			p.Node, err = sc.stringValue(field)
		case "latencyMs":
			p.LatencyMs, err = sc.number(field)
		case "samples":
			p.Samples, err = sc.integer(field)
		}
		return err
	})
	if err != nil {
		return p, err
	}
	for _, f := range []struct {
		name string
		seen bool
	}{{"node", node}, {"latencyMs", latency}, {"samples", samples}} {
		if !f.seen {
			return p, &RejectError{ReasonInvalid, fmt.Sprintf("%s: missing field %s", what, f.name)}
		}
	}
	return p, nil
}

// integer reads a JSON number that is an integer literal (no fraction, no
// exponent, as encoding/json wants for an int64) and fits an int64.
func (sc *scanner) integer(what fieldPath) (int64, error) {
	start := sc.pos
	if _, err := sc.number(what); err != nil {
		var re *RejectError
		if errors.As(err, &re) && re.Reason == ReasonMalformed {
			return 0, err
		}
	}
	text := sc.data[start:sc.pos]
	n, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, &RejectError{ReasonInvalid, fmt.Sprintf("%s: %s does not fit an int64", what, Clip(string(text)))}
		}
		return 0, malformed("%s: want a whole number at offset %d", what, start)
	}
	return n, nil
}
