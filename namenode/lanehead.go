package namenode

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// heartbeatLine is the request line of every request the lane reads.
var heartbeatLine = []byte(http.MethodPost + " " + HeartbeatPath + " HTTP/1.1\r\n")

// parseHead returns the request of head (readHead's, through its blank
// line) when the lane reads it: the heartbeat's request line, header
// fields that net/http would take as they are, exactly one Host and one
// Content-Length, and no Transfer-Encoding, Expect or Upgrade. Anything
// else is false, for net/http to read (and answer, or refuse).
func parseHead(head []byte) (*http.Request, bool) {
	rest, ok := bytes.CutPrefix(head, heartbeatLine)
	if !ok || !bytes.HasSuffix(head, endOfHead) {
		return nil, false
	}
	h := make(http.Header, 8)
	host, hosts, length := "", 0, int64(-1)
	for {
		line, after, ok := bytes.Cut(rest, crlf)
		if !ok {
			return nil, false
		}
		rest = after
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, colon)
		if !ok || !validFieldName(name) {
			return nil, false
		}
		value = bytes.Trim(value, " \t")
		if !validFieldValue(value) {
			return nil, false
		}
		key := http.CanonicalHeaderKey(string(name))
		switch key {
		case "Host":
			host, hosts = string(value), hosts+1
			continue // net/http moves it to Request.Host
		case "Content-Length":
			if length >= 0 {
				return nil, false
			}
			if length = parseLength(value); length < 0 {
				return nil, false
			}
		case "Transfer-Encoding", "Expect", "Upgrade":
			return nil, false
		}
		h[key] = append(h[key], string(value))
	}
	if len(rest) > 0 || hosts != 1 || length < 0 || !validHost(host) {
		return nil, false
	}
	u := heartbeatURL
	r := &http.Request{Method: http.MethodPost, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: length, Host: host, RequestURI: HeartbeatPath,
		Close: hasToken(h, "Connection", "close"), Body: http.NoBody}
	return r, true
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
func validHost(h string) bool {
	for i := range len(h) {
		c := h[i]
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
