package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// scanner reads JSON values from data, strictly by RFC 8259, for
// ParseHeartbeat, which knows the heartbeat's fixed shape.
type scanner struct {
	data []byte
	pos  int
}

func (sc *scanner) skipSpace() {
	for sc.pos < len(sc.data) {
		switch sc.data[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// peek returns the next byte, or 0 at the end.
func (sc *scanner) peek() byte {
	if sc.pos < len(sc.data) {
		return sc.data[sc.pos]
	}
	return 0
}

func (sc *scanner) literal(lit string) bool {
	if len(sc.data)-sc.pos >= len(lit) && string(sc.data[sc.pos:sc.pos+len(lit)]) == lit {
		sc.pos += len(lit)
		return true
	}
	return false
}

// object reads a JSON object, calling field with each key with the
// scanner positioned on its value; field must consume the value.
func (sc *scanner) object(what fieldPath, field func(key []byte) error) error {
	if sc.peek() != '{' {
		return malformed("%s: want an object at offset %d", what, sc.pos)
	}
	sc.pos++
	sc.skipSpace()
	if sc.peek() == '}' {
		sc.pos++
		return nil
	}
	for {
		sc.skipSpace()
		if sc.peek() != '"' {
			return malformed("%s: want a field name at offset %d", what, sc.pos)
		}
		key, err := sc.rawString(fieldPath{peer: what.peer, field: "field name", array: what.array})
		if err != nil {
			return err
		}
		sc.skipSpace()
		if sc.peek() != ':' {
			return malformed("%s: want ':' at offset %d", what, sc.pos)
		}
		sc.pos++
		sc.skipSpace()
		if err := field(key); err != nil {
			return err
		}
		sc.skipSpace()
		switch sc.peek() {
		case ',':
			sc.pos++
		case '}':
			sc.pos++
			return nil
		default:
			return malformed("%s: want ',' or '}' at offset %d", what, sc.pos)
		}
	}
}

// stringValue reads a JSON string value.
func (sc *scanner) stringValue(what fieldPath) (string, error) {
	if sc.peek() != '"' {
		return "", malformed("%s: want a string at offset %d", what, sc.pos)
	}
	b, err := sc.rawString(what)
	return string(b), err
}

// rawString reads a JSON string at sc.pos (on its opening quote) and returns
// its decoded bytes, which alias data when the string has no escapes.
func (sc *scanner) rawString(what fieldPath) ([]byte, error) {
	start := sc.pos
	sc.pos++
	escaped := false
	for sc.pos < len(sc.data) {
		c := sc.data[sc.pos]
		switch {
		case c == '"':
			raw := sc.data[start : sc.pos+1]
			sc.pos++
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
			if sc.pos+1 >= len(sc.data) {
				return nil, malformed("%s: unterminated string at offset %d", what, start)
			}
			switch sc.data[sc.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.pos += 2
			case 'u':
				if sc.pos+6 > len(sc.data) || !isHex4(sc.data[sc.pos+2:sc.pos+6]) {
					return nil, malformed("%s: bad \\u escape at offset %d", what, sc.pos)
				}
				sc.pos += 6
			default:
				return nil, malformed("%s: bad escape at offset %d", what, sc.pos)
			}
		case c < 0x20:
			return nil, malformed("%s: control character in string at offset %d", what, sc.pos)
		default:
			sc.pos++
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
func (sc *scanner) number(what fieldPath) (float64, error) {
	start := sc.pos
	// The number's significant digits as an integer, while there are at
	// most 15 of them, and the power of ten that scales it, for
	// exactFloat; many is set past 15 digits or with an exponent.
	var mant uint64
	var exp10, n int
	many := false
	digits := func(frac bool) int {
		k := 0
		for ; sc.pos < len(sc.data) && '0' <= sc.data[sc.pos] && sc.data[sc.pos] <= '9'; sc.pos++ {
			k++
			if mant == 0 && sc.data[sc.pos] == '0' && frac {
				exp10-- // a leading zero of the fraction: no digit of mant
				continue
			}
			if n++; n > 15 {
				many = true
				continue
			}
			mant = mant*10 + uint64(sc.data[sc.pos]-'0')
			if frac {
				exp10--
			}
		}
		return k
	}
	neg := sc.peek() == '-'
	if neg {
		sc.pos++
	}
	switch c := sc.peek(); {
	case c == '0':
		sc.pos++
	case '1' <= c && c <= '9':
		digits(false)
	default:
		sc.pos = start
		return 0, malformed("%s: want a number at offset %d", what, start)
	}
	if sc.peek() == '.' {
		sc.pos++
		if digits(true) == 0 {
			return 0, malformed("%s: bad number at offset %d", what, start)
		}
	}
	if c := sc.peek(); c == 'e' || c == 'E' {
		sc.pos++
		if c := sc.peek(); c == '+' || c == '-' {
			sc.pos++
		}
		many = true // an exponent: strconv's turn (digits adds it to mant)
		if digits(false) == 0 {
			return 0, malformed("%s: bad number at offset %d", what, start)
		}
	}
	if !many {
		if f, ok := exactFloat(mant, exp10, neg); ok {
			return f, nil
		}
	}
	text := sc.data[start:sc.pos]
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return 0, &RejectError{ReasonInvalid, fmt.Sprintf("%s: %s does not fit a float64", what, Clip(string(text)))}
	}
	return f, nil
}

// objectsHint is the room to make for the array of objects at sc.pos:
// the '{' before the next ']', exact for an array of flat objects (a
// heartbeat's recentLatencies, grown one append at a time, were a tenth
// of what the service allocated at 10 000 agents), at most max.
func (sc *scanner) objectsHint(max int) int {
	rest := sc.data[sc.pos:]
	if end := bytes.IndexByte(rest, ']'); end >= 0 {
		rest = rest[:end]
	}
	return min(bytes.Count(rest, []byte{'{'}), max)
}

// array reads a JSON array of at most max elements at the scanner, each
// read by elem with its index, or null, for which it returns null true.
// field names the array in errors; more than max elements is a refusal
// for the reason tooMany.
func (sc *scanner) array(field string, max int, tooMany string, elem func(i int) error) (null bool, err error) {
	if sc.literal("null") {
		return true, nil
	}
	if sc.peek() != '[' {
		return false, malformed("%s: want an array at offset %d", field, sc.pos)
	}
	sc.pos++
	sc.skipSpace()
	if sc.peek() == ']' {
		sc.pos++
		return false, nil
	}
	for i := 0; ; i++ {
		if i == max {
			return false, &RejectError{tooMany, fmt.Sprintf("%s: more than %d entries", field, max)}
		}
		sc.skipSpace()
		if err := elem(i); err != nil {
			return false, err
		}
		sc.skipSpace()
		switch sc.peek() {
		case ',':
			sc.pos++
		case ']':
			sc.pos++
			return false, nil
		default:
			return false, malformed("%s: want ',' or ']' at offset %d", field, sc.pos)
		}
	}
}

// pow10 are the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat returns ±mant·10^exp10 when one multiplication or division
// of two exactly held float64s gives it, rounded once and so correctly,
// as strconv.ParseFloat does first (Clinger's fast path): mant below
// 2^52, |exp10| at most 22. It keeps strconv's slow path, and its
// kilobyte of stack, off the heartbeats' numbers: at 10 000 agents with a
// connection each, growing each connection's goroutine stack again after
// the collector had shrunk it took 9.4 % of the service's CPU in stack
// copies (1.5 % without it).
func exactFloat(mant uint64, exp10 int, neg bool) (float64, bool) {
	if mant>>52 != 0 || exp10 < -22 || exp10 > 22 {
		return 0, false
	}
	f := float64(mant)
	if neg {
		f = -f
	}
	if exp10 < 0 {
		return f / pow10[-exp10], true
	}
	return f * pow10[exp10], true
}
