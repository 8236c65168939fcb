package namenode

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

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
