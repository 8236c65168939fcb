package namenode

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/slowpeer/slowpeer/reports"
)

// A heartbeat body may come compressed with gzip (reports.AcceptsGzip):
// the service says so on every answer to a heartbeat, and inflates what
// it gets within the same limit, MaxHeartbeatBytes, on the bytes that
// arrive and on the bytes they inflate to, so that a small body that
// inflates to gigabytes (a gzip bomb) is refused with 413 after at most
// MaxHeartbeatBytes of work, and changes nothing.

// reasonUnsupportedEncoding labels a heartbeat in a content coding the
// service does not read; answered 415 (RFC 7694 section 3).
const reasonUnsupportedEncoding = "unsupported_encoding"

// acceptEncoding is the answer's Accept-Encoding: what the service reads.
const acceptEncoding = "gzip"

// inflater is a gzip reader for heartbeat bodies (about 40 KB) with the
// buffered reader it reads through (gzip.Reader would allocate one for
// every body that is not an io.ByteReader).
type inflater struct {
	br *bufio.Reader
	zr *gzip.Reader
}

// inflaters holds inflaters.
var inflaters sync.Pool

var tooLargeInflatedMsg = fmt.Sprintf("heartbeat body larger than %d bytes once inflated", MaxHeartbeatBytes)

// readBody reads the body of r into buf, inflating it when its
// Content-Encoding is gzip, at most MaxHeartbeatBytes before and after.
// Its errors are *reports.RejectError values: too large (413), not gzip
// (400), or a coding other than gzip and identity (415); w is the
// answer's writer, whose connection closes after a body over the limit.
func readBody(buf *bytes.Buffer, w http.ResponseWriter, r *http.Request) error {
	body := http.MaxBytesReader(w, r.Body, MaxHeartbeatBytes)
	coding, err := contentCoding(r.Header)
	if err != nil {
		return err
	}
	if coding == "" {
		if _, err := buf.ReadFrom(body); err != nil {
			return readError(err)
		}
		return nil
	}
	return inflate(buf, body)
}

// contentCoding returns the coding of a heartbeat body: "" for none (no
// Content-Encoding, or identity), "gzip", or an error for 415.
func contentCoding(h http.Header) (string, error) {
	vs := h.Values("Content-Encoding")
	if len(vs) == 0 {
		return "", nil
	}
	coding := ""
	for _, v := range vs {
		for c := range strings.SplitSeq(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			switch {
			case c == "" || c == "identity":
			case (c == "gzip" || c == "x-gzip") && coding == "":
				coding = "gzip"
			default: // another coding, or gzip twice
				return "", &reports.RejectError{Reason: reasonUnsupportedEncoding,
					Message: fmt.Sprintf("Content-Encoding %q, want gzip or none", reports.Clip(strings.Join(vs, ", ")))}
			}
		}
	}
	return coding, nil
}

// inflate reads the gzip stream of body into buf, at most
// MaxHeartbeatBytes of it inflated.
func inflate(buf *bytes.Buffer, body io.Reader) error {
	in, _ := inflaters.Get().(*inflater)
	if in == nil {
		in = &inflater{br: bufio.NewReaderSize(body, 4096)}
	} else {
		in.br.Reset(body)
	}
	defer func() {
		in.br.Reset(nil) // holds no request
		inflaters.Put(in)
	}()
	var err error
	if in.zr == nil {
		in.zr, err = gzip.NewReader(in.br)
	} else {
		err = in.zr.Reset(in.br)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &reports.RejectError{Reason: reports.ReasonMalformed, Message: "empty gzip body"}
		}
		return readError(err)
	}
	n, err := buf.ReadFrom(io.LimitReader(in.zr, MaxHeartbeatBytes+1))
	if err != nil {
		return readError(err)
	}
	if n > MaxHeartbeatBytes {
		return &reports.RejectError{Reason: reasonTooLarge, Message: tooLargeInflatedMsg}
	}
	return nil
}

// readError is the refusal of a body that could not be read: too large
// (as it arrived), or malformed.
func readError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &reports.RejectError{Reason: reasonTooLarge, Message: tooLargeMsg}
	}
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &reports.RejectError{Reason: reports.ReasonMalformed, Message: fmt.Sprintf("gzip body: %v", err)}
	}
	return &reports.RejectError{Reason: reports.ReasonMalformed, Message: fmt.Sprintf("read body: %v", err)}
}
