package jmx

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Hadoop's JMXJsonServlet writes a Number with jg.writeNumber(n.toString()),
// so a double gauge that is NaN or infinite comes out as a bare NaN,
// Infinity or -Infinity, which is not JSON (HADOOP-18954 added the opt-in
// hadoop.http.jmx.nan-filter.enabled because of it). Parse reads them: it
// first rewrites each such token outside strings into a number literal
// that the document does not otherwise hold, lets encoding/json decode the
// document, and turns those literals back into json.Number("NaN"),
// json.Number("Infinity") and json.Number("-Infinity"), which
// strconv.ParseFloat and json.Number.Float64 read.

// nonFinite holds the literals that stand for the three tokens in one
// document. A nil *nonFinite means the document had none.
type nonFinite struct {
	stand map[json.Number]json.Number // literal -> "NaN", "Infinity", "-Infinity"
}

// rewriteNonFinite returns data with every bare NaN, Infinity and
// -Infinity outside strings replaced by a literal, and what to restore, or
// data itself and nil when there is none.
func rewriteNonFinite(data []byte) ([]byte, *nonFinite) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data, nil
	}
	// Literals 1E+0999…90, 1E+0999…91 and -1E+0999…91 with as many nines
	// as it takes for the document not to contain "E+0999…9" already.
	// (encoding/json never evaluates the exponent with UseNumber.)
	nines := 1
	for bytes.Contains(data, []byte("E+0"+strings.Repeat("9", nines))) {
		nines++
	}
	base := "1E+0" + strings.Repeat("9", nines)
	nan, inf := base+"0", base+"1"
	var out []byte
	inString := false
	last := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		var token, literal string
		switch {
		case c == '"':
			inString = true
			continue
		case c == 'N' && bytes.HasPrefix(data[i:], []byte("NaN")):
			token, literal = "NaN", nan
		case c == 'I' && bytes.HasPrefix(data[i:], []byte("Infinity")):
			token, literal = "Infinity", inf
		case c == '-' && bytes.HasPrefix(data[i:], []byte("-Infinity")):
			token, literal = "-Infinity", "-"+inf
		default:
			continue
		}
		if !valueStart(data[:i]) || !valueEnd(data[i+len(token):]) {
			continue // not a token of its own; encoding/json will say what is wrong
		}
		if out == nil {
			out = make([]byte, 0, len(data)+64)
		}
		out = append(out, data[last:i]...)
		out = append(out, literal...)
		i += len(token) - 1
		last = i + 1
	}
	if out == nil {
		return data, nil
	}
	out = append(out, data[last:]...)
	return out, &nonFinite{stand: map[json.Number]json.Number{
		json.Number(nan): "NaN", json.Number(inf): "Infinity", json.Number("-" + inf): "-Infinity"}}
}

// valueStart reports whether a value may begin right after before: the
// last byte that is not whitespace is ':', ',' or '['.
func valueStart(before []byte) bool {
	before = bytes.TrimRight(before, " \t\r\n")
	if len(before) == 0 {
		return false
	}
	c := before[len(before)-1]
	return c == ':' || c == ',' || c == '['
}

// valueEnd reports whether a value may end right before after.
func valueEnd(after []byte) bool {
	if len(after) == 0 {
		return true
	}
	switch after[0] {
	case ' ', '\t', '\r', '\n', ',', ']', '}':
		return true
	}
	return false
}

// restore returns v with the literals turned back into the tokens they
// stand for; it changes maps and slices of v in place.
func (n *nonFinite) restore(v any) any {
	if n == nil {
		return v
	}
	switch v := v.(type) {
	case json.Number:
		if t, ok := n.stand[v]; ok {
			return t
		}
	case map[string]any:
		for k, x := range v {
			v[k] = n.restore(x)
		}
	case []any:
		for i, x := range v {
			v[i] = n.restore(x)
		}
	}
	return v
}
