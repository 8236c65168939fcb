package namenode

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

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
// several times faster on the hot path.
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

// decoder reads the fixed shape of a heartbeat from data.
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return true
	}
	return false
}

// object reads a JSON object, calling field with each key with the
// decoder positioned on its value; field must consume the value.
func (d *decoder) object(what loc, field func(key []byte) error) error {
	if d.peek() != '{' {
		return malformed("%s: want an object at offset %d", what, d.pos)
	}
	d.pos++
	d.space()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		d.space()
		if d.peek() != '"' {
			return malformed("%s: want a field name at offset %d", what, d.pos)
		}
		key, err := d.strBytes(loc{what.peer, "field name"})
		if err != nil {
			return err
		}
		d.space()
		if d.peek() != ':' {
			return malformed("%s: want ':' at offset %d", what, d.pos)
		}
		d.pos++
		d.space()
		if err := field(key); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return malformed("%s: want ',' or '}' at offset %d", what, d.pos)
		}
	}
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

// str reads a JSON string value.
func (d *decoder) str(what loc) (string, error) {
	if d.peek() != '"' {
		return "", malformed("%s: want a string at offset %d", what, d.pos)
	}
	b, err := d.strBytes(what)
	return string(b), err
}

// strBytes reads a JSON string at d.pos (on its opening quote) and returns
// its decoded bytes, which alias data when the string has no escapes.
func (d *decoder) strBytes(what loc) ([]byte, error) {
	start := d.pos
	d.pos++
	escaped := false
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			raw := d.data[start : d.pos+1]
			d.pos++
			if !utf8.Valid(raw) {
				return nil, malformed("%s: string at offset %d is not valid UTF-8", what, start)
			}
			if !escaped {
				return raw[1 : len(raw)-1], nil
			}
			// The grammar is checked; encoding/json unescapes exactly
			// as JSON says, surrogate pairs included.
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, malformed("%s: bad string at offset %d", what, start)
			}
			return []byte(s), nil
		case c == '\\':
			escaped = true
			if d.pos+1 >= len(d.data) {
				return nil, malformed("%s: unterminated string at offset %d", what, start)
			}
			switch d.data[d.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.pos += 2
			case 'u':
				if d.pos+6 > len(d.data) || !isHex4(d.data[d.pos+2:d.pos+6]) {
					return nil, malformed("%s: bad \\u escape at offset %d", what, d.pos)
				}
				d.pos += 6
			default:
				return nil, malformed("%s: bad escape at offset %d", what, d.pos)
			}
		case c < 0x20:
			return nil, malformed("%s: control character in string at offset %d", what, d.pos)
		default:
			d.pos++
		}
	}
	return nil, malformed("%s: unterminated string at offset %d", what, start)
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a JSON number (RFC 8259 grammar) that fits a float64.
func (d *decoder) number(what loc) (float64, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.peek() == '-' {
		d.pos++
	}
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case '1' <= c && c <= '9':
		digits()
	default:
		d.pos = start
		return 0, malformed("%s: want a number at offset %d", what, start)
	}
	if d.peek() == '.' {
		d.pos++
		if digits() == 0 {
			return 0, malformed("%s: bad number at offset %d", what, start)
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if digits() == 0 {
			return 0, malformed("%s: bad number at offset %d", what, start)
		}
	}
	text := d.data[start:d.pos]
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return 0, &decodeError{reasonInvalid, fmt.Sprintf("%s: %s does not fit a float64", what, truncate(text))}
	}
	return f, nil
}

// truncate keeps error messages one short line.
func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
