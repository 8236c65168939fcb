package namenode

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// heartbeatLine is the request line of every request the lane reads.
var heartbeatLine = []byte(http.MethodPost + " " + HeartbeatPath + " HTTP/1.1\r\n")

// parseHead reads head (readHead's, through its blank line) into ex's
// request, whose Header is empty, when the lane reads it: the heartbeat's request
// line, header fields that net/http would take as they are, exactly one
// Host and one Content-Length, and no Transfer-Encoding, Expect or
// Upgrade. It sets r's Header, Host, ContentLength and Close, and
// reports false, for net/http to read the request (and answer, or
// refuse it), for anything else.
func parseHead(head []byte, ex *exchange) bool {
	r := ex.req
	rest, ok := bytes.CutPrefix(head, heartbeatLine)
	if !ok || !bytes.HasSuffix(head, endOfHead) {
		return false
	}
	hosts, length := 0, int64(-1)
	for {
		line, after, ok := bytes.Cut(rest, crlf)
		if !ok {
			return false
		}
		rest = after
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, colon)
		if !ok || !validFieldName(name) {
			return false
		}
		value = bytes.Trim(value, " \t")
		if !validFieldValue(value) {
			return false
		}
		key := fieldName(name)
		switch key {
		case "Host":
			if hosts++; !validHost(value) {
				return false
			}
			if string(value) != ex.host { // the same on every heartbeat
				ex.host = string(value)
			}
			r.Host = ex.host
			continue // net/http moves it to Request.Host
		case "Content-Length":
			if length >= 0 {
				return false
			}
			if length = parseLength(value); length < 0 {
				return false
			}
		case "Transfer-Encoding", "Expect", "Upgrade":
			return false
		}
		// The values share ex's array, each a slice of its own that a
		// second value of the same name moves out.
		v := fieldValue(value)
		if vs, ok := r.Header[key]; ok {
			r.Header[key] = append(vs, v)
		} else {
			ex.values = append(ex.values, v)
			n := len(ex.values)
			r.Header[key] = ex.values[n-1 : n : n]
		}
	}
	if len(rest) > 0 || hosts != 1 || length < 0 {
		return false
	}
	r.ContentLength, r.Close = length, hasToken(r.Header, "Connection", "close")
	return true
}

// fieldName is the canonical form of a field name, without allocating
// for the names an agent sends.
func fieldName(b []byte) string {
	if s, ok := agentNames[string(b)]; ok {
		return s
	}
	return http.CanonicalHeaderKey(string(b))
}

// fieldValue is a field's value, without allocating for the values an
// agent sends that are the same on every heartbeat.
func fieldValue(b []byte) string {
	if s, ok := agentValues[string(b)]; ok {
		return s
	}
	return string(b)
}

var (
	agentNames = set("Host", "User-Agent", "Content-Length", "Content-Type", "Content-Encoding",
		"Accept-Encoding", "Authorization", "Connection", reports.ChallengeHeader)
	agentValues = set("application/json", "gzip", "Go-http-client/1.1")
)

// set maps each of strs to itself.
func set(strs ...string) map[string]string {
	m := make(map[string]string, len(strs))
	for _, s := range strs {
		m[s] = s
	}
	return m
}

var (
	crlf  = []byte("\r\n")
	colon = []byte(":")
)

// parseLength is a Content-Length of 1 to 18 digits, or -1.
func parseLength(v []byte) int64 {
	if len(v) == 0 || len(v) > 18 {
		return -1
	}
	for _, b := range v {
		if b < '0' || b > '9' {
			return -1
		}
	}
	n, _ := strconv.ParseInt(string(v), 10, 64)
	return n
}

// validFieldName reports whether b is a token (RFC 9110 section 5.6.2).
func validFieldName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isTokenByte(c) {
			return false
		}
	}
	return true
}

func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// validFieldValue reports whether b holds no control byte but HTAB.
func validFieldValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validHost reports whether a Host is a name or an address with an
// optional port: letters, digits and "-._:[]". Narrower than net/http: a
// Host it refuses goes to net/http.
func validHost(h []byte) bool {
	for _, c := range h {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated values of h's key hold
// token, in any case.
func hasToken(h http.Header, key, token string) bool {
	for _, v := range h[key] {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
