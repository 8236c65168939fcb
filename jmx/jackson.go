package jmx

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
