package namenode

import (
	"fmt"
	"strconv"

	"github.com/slowpeer/slowpeer/reports"
)

// Reasons a heartbeat is rejected; they label
// slowpeer_heartbeats_rejected_total.
const (
	reasonMalformed    = "malformed"      // not JSON, not the heartbeat's shape, trailing data
	reasonUnknownField = "unknown_field"  // a field the heartbeat does not have
	reasonTooManyPeers = "too_many_peers" // more than reports.MaxSlowPeers slow peers
	reasonInvalid      = "invalid"        // well-formed, but a bad node id or latency
	reasonTooLarge     = "too_large"      // body over MaxHeartbeatBytes
	reasonUnauthorized = "unauthorized"   // missing or wrong bearer token
)

var rejectReasons = []string{
	reasonMalformed, reasonUnknownField, reasonTooManyPeers,
	reasonInvalid, reasonTooLarge, reasonUnauthorized,
}

// decodeError is a rejected heartbeat: why (one of the reasons above) and
// a one-line message for the sender.
type decodeError struct {
	reason string
	msg    string
}

func (e *decodeError) Error() string { return e.msg }

func malformed(format string, args ...any) error {
	return &decodeError{reasonMalformed, fmt.Sprintf(format, args...)}
}

// decodeHeartbeat decodes and validates a heartbeat body strictly: one
// JSON object with exactly the fields of reports.Heartbeat (names matched
// exactly, none twice, none unknown), strings of valid UTF-8, numbers that
// fit a float64, nothing after the object, and then Heartbeat.Validate.
// "slowPeers": null is the same as no slowPeers field. Every peer must
// carry all five of its fields.
//
// It accepts a subset of what encoding/json with DisallowUnknownFields
// accepts, and decodes what it accepts to the same value (the fuzz test
// checks both); it exists because it is exact about field names and
// about three times faster, with a third of the allocations
// (BenchmarkDecodeHeartbeat).
func decodeHeartbeat(data []byte) (reports.Heartbeat, error) {
	d := decoder{data: data}
	var hb reports.Heartbeat
	d.space()
	if d.pos == len(d.data) {
		return hb, malformed("empty body")
	}
	var seenNode, seenPeers bool
	err := d.object(loc{peer: -1}, func(key []byte) error {
		switch string(key) {
		case "node":
			if seenNode {
				return malformed("field node given twice")
			}
			seenNode = true
			s, err := d.str(loc{-1, "node"})
			hb.Node = s
			return err
		case "slowPeers":
			if seenPeers {
				return malformed("field slowPeers given twice")
			}
			seenPeers = true
			peers, err := d.peers()
			hb.SlowPeers = peers
			return err
		default:
			return &decodeError{reasonUnknownField, fmt.Sprintf("unknown field %q", key)}
		}
	})
	if err != nil {
		return reports.Heartbeat{}, err
	}
	d.space()
	if d.pos != len(d.data) {
		return reports.Heartbeat{}, malformed("data after the heartbeat object at offset %d", d.pos)
	}
	if err := hb.Validate(); err != nil {
		reason := reasonInvalid
		if len(hb.SlowPeers) > reports.MaxSlowPeers {
			reason = reasonTooManyPeers
		}
		return reports.Heartbeat{}, &decodeError{reason, err.Error()}
	}
	return hb, nil
}

// loc names a place in the heartbeat for error messages; it is built
// into a string only when an error needs it.
type loc struct {
	peer  int    // index in slowPeers, or -1 for the heartbeat itself
	field string // field name, or "" for the object
}

func (l loc) String() string {
	var s string
	if l.peer < 0 {
		s = "heartbeat"
		if l.field != "" {
			s = l.field
		}
		return s
	}
	s = "slowPeers[" + strconv.Itoa(l.peer) + "]"
	if l.field != "" {
		s += "." + l.field
	}
	return s
}

// peers reads the slowPeers value: null, or an array of peer objects.
func (d *decoder) peers() ([]reports.SlowPeer, error) {
	if d.literal("null") {
		return nil, nil
	}
	if d.peek() != '[' {
		return nil, malformed("slowPeers: want an array at offset %d", d.pos)
	}
	d.pos++
	peers := make([]reports.SlowPeer, 0, 4)
	d.space()
	if d.peek() == ']' {
		d.pos++
		return peers, nil
	}
	for {
		if len(peers) == reports.MaxSlowPeers {
			return nil, &decodeError{reasonTooManyPeers,
				fmt.Sprintf("slowPeers: more than %d entries", reports.MaxSlowPeers)}
		}
		d.space()
		p, err := d.peer(len(peers))
		if err != nil {
			return nil, err
		}
		peers = append(peers, p)
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return peers, nil
		default:
			return nil, malformed("slowPeers: want ',' or ']' at offset %d", d.pos)
		}
	}
}

// The fields of a peer, as bits of a mask.
const (
	fieldNode = 1 << iota
	fieldLatency
	fieldMedian
	fieldMAD
	fieldUpperLimit
)

func (d *decoder) peer(i int) (reports.SlowPeer, error) {
	var p reports.SlowPeer
	var seen int
	what := loc{peer: i}
	err := d.object(what, func(key []byte) error {
		var bit int
		var dst *float64
		switch string(key) {
		case "node":
			bit = fieldNode
		case "latencyMs":
			bit, dst = fieldLatency, &p.LatencyMs
		case "medianMs":
			bit, dst = fieldMedian, &p.MedianMs
		case "madMs":
			bit, dst = fieldMAD, &p.MADMs
		case "upperLimitMs":
			bit, dst = fieldUpperLimit, &p.UpperLimitMs
		default:
			return &decodeError{reasonUnknownField, fmt.Sprintf("%s: unknown field %q", what, key)}
		}
		if seen&bit != 0 {
			return malformed("%s: field %s given twice", what, key)
		}
		seen |= bit
		if dst == nil {
			s, err := d.str(loc{i, "node"})
			p.Node = s
			return err
		}
		f, err := d.number(loc{i, fieldName(bit)})
		*dst = f
		return err
	})
	if err != nil {
		return p, err
	}
	for bit := 1; bit <= fieldUpperLimit; bit <<= 1 {
		if seen&bit == 0 {
			return p, &decodeError{reasonInvalid, fmt.Sprintf("%s: missing field %s", what, fieldName(bit))}
		}
	}
	return p, nil
}

func fieldName(bit int) string {
	switch bit {
	case fieldNode:
		return "node"
	case fieldLatency:
		return "latencyMs"
	case fieldMedian:
		return "medianMs"
	case fieldMAD:
		return "madMs"
	case fieldUpperLimit:
		return "upperLimitMs"
	}
	panic("BUG: namenode: no peer field for bit " + strconv.Itoa(bit))
}
