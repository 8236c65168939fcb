package jmx

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// jacksonIndent appends to dst the compact JSON src laid out as Jackson's
// DefaultPrettyPrinter lays it out, which is what JMXJsonServlet's
// jg.useDefaultPrettyPrinter() gives Hadoop's /jmx:
//
//   - an object puts each member on its own line, indented two spaces per
//     open object, with " : " between name and value; "{ }" when empty;
//   - an array stays on its line, "[ a, b ]", and does not indent what it
//     holds; "[ ]" when empty.
//
// src must be compact (no whitespace outside strings), as encoding/json
// writes it. jacksonIndent never panics; on input that is not compact JSON
// the layout is unspecified.
func jacksonIndent(dst, src []byte) []byte {
	var open []byte // the '{' and '[' not yet closed
	objects := 0    // open objects: the indentation level
	newline := func() {
		dst = append(dst, '\n')
		for range objects {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			if i+1 < len(src) && src[i+1] == closer(c) {
				dst = append(dst, c, ' ', src[i+1])
				i++
				continue
			}
			open = append(open, c)
			if c == '{' {
				objects++
				dst = append(dst, '{')
				newline()
			} else {
				dst = append(dst, '[', ' ')
			}
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			objects = max(objects-1, 0)
			newline()
			dst = append(dst, '}')
		case ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			dst = append(dst, ' ', ']')
		case ',':
			if len(open) > 0 && open[len(open)-1] == '{' {
				dst = append(dst, ',')
				newline()
			} else {
				dst = append(dst, ',', ' ')
			}
		case ':':
			dst = append(dst, " : "...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// AppendString appends s to dst as a JSON string, escaped as Jackson
// escapes it (as MarshalJackson writes strings), for writers that build
// a large document without reflection.
func AppendString(dst []byte, s string) []byte { return appendJacksonString(dst, s) }

// appendJacksonString appends s as a JSON string with Jackson's escapes
// (CharTypes.sOutputEscapes128): only '"', '\\' and the control
// characters.
func appendJacksonString(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}

// compactJSON returns raw without insignificant whitespace, or an error
// when it is not one JSON value.
func compactJSON(raw []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
