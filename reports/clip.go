package reports

import "unicode/utf8"

// ClipBytes is how many bytes of outside input Clip keeps: enough to
// recognise a node id or a field name in an error message, too few for
// a hostile sender to make the message (and the log line that repeats
// it) large.
const ClipBytes = 48

// Clip returns s cut to at most ClipBytes bytes, on a rune boundary, "…"
// ending it when something was cut. Every error message that quotes
// input the service received quotes it clipped, so that a 900 KB node id
// gives a one-line error of a few dozen bytes.
func Clip(s string) string { return ClipTo(s, ClipBytes) }

// ClipTo returns s cut to at most n bytes (n at least 3), on a rune
// boundary, with "…" (3 bytes, counted in n) ending it when something was
// cut.
func ClipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n-len("…"), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
