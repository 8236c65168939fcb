package namenode

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// rawPost writes a whole request (header, then body) on a fresh TCP
// connection before reading anything, as Python's urllib and Java's
// HttpURLConnection do, and returns the answer.
func rawPost(t *testing.T, addr, header string, body []byte) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A small send buffer, as over a real network: the client's writes
	// wait for the server to read (on loopback the kernel would otherwise
	// take the whole body at once).
	if err := c.(*net.TCPConn).SetWriteBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, header); err != nil {
		t.Fatalf("write header: %v", err)
	}
	if _, err := c.Write(body); err != nil {
		t.Fatalf("write body: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer body: %v", err)
	}
	return resp, b
}

func wantJSONError(t *testing.T, resp *http.Response, body []byte, status int) {
	t.Helper()
	var e reports.ErrorBody
	if resp.StatusCode != status || json.Unmarshal(body, &e) != nil || e.Error == "" {
		t.Fatalf("answer %d %q, want %d with a JSON error", resp.StatusCode, body, status)
	}
}

// A client that writes a 2 MiB heartbeat whole, without Expect:
// 100-continue, and only then reads, gets the 413 JSON error, not a reset.
func TestOversizedBodyWrittenWholeGetsError(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken = "tok" })
	base, _ := serve(t, s)
	addr := strings.TrimPrefix(base, "http://")
	body := []byte(`{"node":"10.0.0.1:9866","x":"` + strings.Repeat("a", 2<<20) + `"}`)
	head := func(extra string, length bool) string {
		h := "POST " + HeartbeatPath + " HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\n" + extra
		if length {
			h += fmt.Sprintf("Content-Length: %d\r\n", len(body))
		}
		return h + "\r\n"
	}
	for i := range 10 {
		resp, b := rawPost(t, addr, head("Authorization: Bearer tok\r\n", true), body)
		wantJSONError(t, resp, b, http.StatusRequestEntityTooLarge)
		if i == 0 && !strings.Contains(string(b), "larger than") {
			t.Fatalf("413 body %s", b)
		}
	}
	// Refused before its handler (wrong token): the same.
	resp, b := rawPost(t, addr, head("Authorization: Bearer bad\r\n", true), body)
	wantJSONError(t, resp, b, http.StatusUnauthorized)
	// Chunked, over the limit only once read.
	chunked := []byte(fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body))
	resp, b = rawPost(t, addr, head("Authorization: Bearer tok\r\nTransfer-Encoding: chunked\r\n", false), chunked)
	wantJSONError(t, resp, b, http.StatusRequestEntityTooLarge)
}

// A client that waits for 100 Continue is answered at once and never
// asked for its body.
func TestOversizedBodyExpectContinue(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	base, _ := serve(t, s)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		HeartbeatPath, 2<<20)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	wantJSONError(t, resp, b, http.StatusRequestEntityTooLarge)
}

// A route of another package reaches the connection through the draining
// writer: http.ResponseController can set its deadlines and flush.
func TestDrainingWriterUnwraps(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	errs := make(chan error, 1)
	s.Handle("GET", "/v1/stream", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		err := rc.SetWriteDeadline(time.Now().Add(time.Minute))
		if err == nil {
			w.Write([]byte("x"))
			err = rc.Flush()
		}
		errs <- err
	}))
	base, _ := serve(t, s)
	resp, err := http.Get(base + "/v1/stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-errs; err != nil {
		t.Fatalf("ResponseController through the draining writer: %v", err)
	}
}
