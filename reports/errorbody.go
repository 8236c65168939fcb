package reports

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// ErrorBody is the JSON body with which slowpeer's HTTP endpoints refuse
// a request (every status but 2xx): {"error": "one line"}. The service,
// the HiveServer picker, /conf and the dashboard answer with it; the
// agent and the commands read it with ErrorMessage.
type ErrorBody struct {
	// Error says what was wrong, in one line of at most MaxErrorBytes.
	Error string `json:"error"`
}

// MaxErrorBytes bounds the message of an ErrorBody: a server clips its
// own messages to it, and ErrorMessage clips what it reads to it.
const MaxErrorBytes = 300

// ErrorMessage returns the message of an ErrorBody in data, made safe to
// print on one line: control characters and bytes that are not UTF-8
// become spaces, and it is clipped to MaxErrorBytes (ClipTo). ok is false
// when data is not JSON with a non-empty "error" string (a proxy's HTML
// page, say).
func ErrorMessage(data []byte) (msg string, ok bool) {
	var e ErrorBody
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		return "", false
	}
	msg = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, e.Error)
	return ClipTo(msg, MaxErrorBytes), true
}
