package namenode

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// startLane serves s on 127.0.0.1 as Serve does without TLS, through a
// lane with net/http behind it (useLane), or through net/http alone, as
// under TLS; edit may change the lane before it starts. It returns the
// lane (nil without one) and the address.
func startLane(tb testing.TB, s *Server, useLane bool, edit func(*lane)) (*lane, string) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := s.Handler()
	limited := newLimitListener(ln, 20000)
	srv := &http.Server{Handler: h, ConnContext: withConn}
	var wg sync.WaitGroup
	var l *lane
	if useLane {
		l = newLane(s, h, limited)
		if edit != nil {
			edit(l)
		}
		wg.Go(func() { srv.Serve(l.handed) })
		wg.Go(func() { l.run() })
	} else {
		wg.Go(func() { srv.Serve(limited) })
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if l != nil {
			l.shutdown(ctx)
		}
		srv.Shutdown(ctx)
		wg.Wait()
	})
	return l, ln.Addr().String()
}

// rawConn is a client connection that writes requests as given and reads
// the answers in order.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (r *rawConn) send(reqs ...string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, strings.Join(reqs, "")); err != nil {
		r.t.Fatal(err)
	}
}

// answer reads the next answer: its status, body and header.
func (r *rawConn) answer() (int, string, http.Header) {
	r.t.Helper()
	resp, err := http.ReadResponse(r.br, nil)
	for err == nil && resp.StatusCode < 200 { // 100 Continue
		resp, err = http.ReadResponse(r.br, nil)
	}
	if err != nil {
		r.t.Fatalf("read answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("read answer's body: %v", err)
	}
	if resp.Close { // ReadResponse takes "Connection: close" out
		resp.Header.Set("Connection", "close")
	}
	return resp.StatusCode, string(b), resp.Header
}

// closed reports whether the server closed the connection (no answer
// more).
func (r *rawConn) closed() bool {
	_, err := r.br.ReadByte()
	return err == io.EOF
}

func heartbeatReq(node string, extra ...string) string {
	body := fmt.Sprintf(`{"node":%q}`, node)
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn:9870\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s",
		HeartbeatPath, len(body), strings.Join(extra, ""), body)
}

// Heartbeats, one after another and pipelined, are answered on a
// keep-alive connection by the lane, which holds no read buffer while the
// connection waits.
func TestLaneKeepAlive(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	l, addr := startLane(t, s, true, nil)
	c := dialRaw(t, addr)
	c.send(heartbeatReq("10.0.0.1:9866"))
	code, body, h := c.answer()
	if code != 200 || body != `{"slow":false}` || h.Get("Accept-Encoding") != "gzip" ||
		h.Get("Content-Type") != "application/json" || h.Get("Date") == "" || h.Get("Connection") != "" {
		t.Fatalf("heartbeat: %d %s %v", code, body, h)
	}
	c.send(heartbeatReq("10.0.0.2:9866"), heartbeatReq("10.0.0.3:9866"))
	for range 2 {
		if code, body, _ := c.answer(); code != 200 || body != `{"slow":false}` {
			t.Fatalf("pipelined heartbeat: %d %s", code, body)
		}
	}
	if n := s.DataNodes().Len(); n != 3 {
		t.Fatalf("%d DataNodes, want 3", n)
	}
	waitFor(t, func() bool { return l.reading.Load() == 0 }, "the idle connection to give its buffer back")
}

// A request the lane does not read is net/http's, with the connection
// it came on: what came before and after it on that connection is
// answered in order.
func TestLaneHandsOff(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	_, addr := startLane(t, s, true, nil)
	c := dialRaw(t, addr)
	c.send(heartbeatReq("10.0.0.1:9866"),
		"GET /slowpeers HTTP/1.1\r\nHost: nn\r\n\r\n",
		heartbeatReq("10.0.0.2:9866"))
	if code, body, _ := c.answer(); code != 200 || body != `{"slow":false}` {
		t.Fatalf("heartbeat: %d %s", code, body)
	}
	if code, body, _ := c.answer(); code != 200 || !strings.HasPrefix(body, "[") {
		t.Fatalf("GET /slowpeers: %d %s", code, body)
	}
	if code, body, _ := c.answer(); code != 200 || body != `{"slow":false}` {
		t.Fatalf("heartbeat after the hand-off: %d %s", code, body)
	}
	// Each of these is net/http's from its first byte.
	for _, req := range []string{
		heartbeatReq("10.0.0.3:9866", "Expect: 100-continue\r\n"),
		strings.Replace(heartbeatReq("10.0.0.4:9866"), "HTTP/1.1", "HTTP/1.0", 1),
		fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"+
			"12\r\n{\"node\":\"h5:9866\"}\r\n0\r\n\r\n", HeartbeatPath),
		heartbeatReq("10.0.0.6:9866", "X-Long: "+strings.Repeat("x", laneBufferBytes)+"\r\n"),
	} {
		c := dialRaw(t, addr)
		c.send(req)
		if code, body, _ := c.answer(); code != 200 || body != `{"slow":false}` {
			t.Fatalf("%.60q (%d bytes): %d %s", req, len(req), code, body)
		}
	}
	if n := s.DataNodes().Len(); n != 6 {
		t.Fatalf("%d DataNodes, want 6", n)
	}
	// A malformed request is net/http's to refuse.
	c = dialRaw(t, addr)
	c.send(fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", HeartbeatPath))
	if code, _, _ := c.answer(); code != http.StatusBadRequest {
		t.Fatalf("two Content-Lengths: %d, want 400", code)
	}
}

// Refusals: a malformed body, or one over the limit that is drained, is
// refused and the connection serves on; a body cut short, or a client
// asking for it, closes the connection after the answer.
func TestLaneRefusals(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	_, addr := startLane(t, s, true, nil)
	c := dialRaw(t, addr)
	bad := `{"node":`
	c.send(fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		HeartbeatPath, len(bad), bad))
	if code, body, _ := c.answer(); code != http.StatusBadRequest || !strings.Contains(body, "heartbeat") {
		t.Fatalf("malformed heartbeat: %d %s", code, body)
	}
	c.send(heartbeatReq("10.0.0.1:9866", "Connection: close\r\n"))
	if code, _, h := c.answer(); code != 200 || h.Get("Connection") != "close" || !c.closed() {
		t.Fatalf("heartbeat asking to close: %d %v, or the connection stayed open", code, h)
	}

	// Over the limit, the whole body sent: drained, answered, and the
	// connection serves on.
	c = dialRaw(t, addr)
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		HeartbeatPath, MaxHeartbeatBytes+1)
	go c.send(head + strings.Repeat(" ", MaxHeartbeatBytes+1))
	if code, _, h := c.answer(); code != http.StatusRequestEntityTooLarge || h.Get("Connection") == "close" {
		t.Fatalf("heartbeat over the limit: %d %v", code, h)
	}
	c.send(heartbeatReq("10.0.0.2:9866"))
	if code, _, _ := c.answer(); code != 200 {
		t.Fatalf("heartbeat after a drained one: %d", code)
	}
	// Over the limit and cut short: answered, and the connection closed.
	c = dialRaw(t, addr)
	c.send(head + "{}")
	c.c.(*net.TCPConn).CloseWrite()
	if code, _, h := c.answer(); code != http.StatusRequestEntityTooLarge || h.Get("Connection") != "close" || !c.closed() {
		t.Fatalf("heartbeat over the limit, cut short: %d %v, or the connection stayed open", code, h)
	}
	if n := s.DataNodes().Len(); n != 2 {
		t.Fatalf("%d DataNodes, want 2", n)
	}
}

// A keep-alive connection is closed after the idle timeout, and a
// request whose head does not come within HeaderReadTimeout too.
func TestLaneTimeouts(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.HeaderReadTimeout = 100 * time.Millisecond })
	l, addr := startLane(t, s, true, func(l *lane) { l.idleTimeout = 100 * time.Millisecond })
	c := dialRaw(t, addr)
	c.send(heartbeatReq("10.0.0.1:9866"))
	c.answer()
	start := time.Now()
	if !c.closed() {
		t.Fatal("an idle connection was not closed")
	}
	t.Logf("idle connection closed after %v", time.Since(start))
	c = dialRaw(t, addr)
	c.send("POST /v1/heart")
	if !c.closed() {
		t.Fatal("a connection that sent half a head was not closed")
	}
	waitFor(t, func() bool { return l.reading.Load() == 0 && l.ln.open() == 0 }, "the connections to be gone")
}

// Shutdown closes the connections waiting for their next request at
// once, and a heartbeat answered while it waits says Connection: close.
func TestLaneShutdown(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	l, addr := startLane(t, s, true, nil)
	idle := dialRaw(t, addr)
	idle.send(heartbeatReq("10.0.0.1:9866"))
	idle.answer()
	busy := dialRaw(t, addr)
	half := heartbeatReq("10.0.0.2:9866")
	busy.send(half[:len(half)-3]) // all but the body's end
	waitFor(t, func() bool { return l.reading.Load() == 1 }, "the second heartbeat to arrive")

	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- l.shutdown(ctx)
	}()
	if !idle.closed() {
		t.Fatal("the idle connection was not closed")
	}
	busy.send(half[len(half)-3:])
	if code, _, h := busy.answer(); code != 200 || h.Get("Connection") != "close" || !busy.closed() {
		t.Fatalf("heartbeat during the shutdown: %d %v, or its connection stayed open", code, h)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// The lane's answers are the handler's: the same status, header fields
// and body as net/http's for the same requests.
func TestLaneAnswersAsTheHandler(t *testing.T) {
	for _, tc := range []struct{ name, req string }{
		{"accepted", heartbeatReq("10.0.0.1:9866")},
		{"wrong type", strings.Replace(heartbeatReq("10.0.0.1:9866"), "application/json", "text/plain", 1)},
		{"no token", heartbeatReq("10.0.0.1:9866")},
		{"token", heartbeatReq("10.0.0.1:9866", "Authorization: Bearer secret\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edit := func(c *Config) {
				if tc.name == "no token" || tc.name == "token" {
					c.AuthToken = "secret"
				}
			}
			s, _, _ := newTestServer(t, edit)
			_, addr := startLane(t, s, true, nil)
			c := dialRaw(t, addr)
			c.send(tc.req)
			code, body, h := c.answer()

			ref, _, _ := newTestServer(t, edit)
			req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.req)))
			if err != nil {
				t.Fatal(err)
			}
			req.RemoteAddr = "127.0.0.1:1"
			w := httptest.NewRecorder()
			ref.Handler().ServeHTTP(w, req)
			if n := h.Get("Content-Length"); n != fmt.Sprint(len(body)) {
				t.Fatalf("Content-Length %s, body %d bytes", n, len(body))
			}
			h.Del("Date")
			h.Del("Content-Length")
			w.Header().Del("Content-Length")
			if code != w.Code || body != w.Body.String() || !reflect.DeepEqual(h, w.Header()) {
				t.Fatalf("lane: %d %s %v\nhandler: %d %s %v", code, body, h, w.Code, w.Body, w.Header())
			}
		})
	}
}

// waitFor waits up to 10 s for cond.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// FuzzParseHead: whatever the lane reads as a heartbeat's head, net/http
// reads the same way: the same method, target, Host, length and header
// fields. Everything else is net/http's, so the lane never answers a
// request net/http would have refused or read otherwise.
func FuzzParseHead(f *testing.F) {
	f.Add([]byte(heartbeatReq("10.0.0.1:9866")))
	f.Add([]byte(heartbeatReq("h:1", "Content-Encoding: gzip\r\nAuthorization: Bearer x\r\nConnection: close\r\n")))
	f.Add([]byte("POST /v1/heartbeat HTTP/1.1\r\nhost: a\r\ncontent-length: 0\r\n\r\n"))
	f.Add([]byte("POST /v1/heartbeat HTTP/1.1\r\nHost: a\r\nContent-Length: 01\r\nX: \x01\r\n\r\n"))
	f.Add([]byte("POST /v1/heartbeat HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n folded\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		head, err := readHead(bufio.NewReaderSize(bytes.NewReader(in), laneBufferBytes))
		if err != nil {
			head = in // parseHead must refuse what is not a whole head
		}
		ex := newExchange(nil)
		defer ex.free()
		got := ex.req
		if !parseHead(head, ex) {
			return
		}
		want, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
		if err != nil {
			t.Fatalf("the lane reads %q; net/http refuses it: %v", head, err)
		}
		if got.Method != want.Method || got.RequestURI != want.RequestURI || got.URL.String() != want.URL.String() ||
			got.Host != want.Host || got.ContentLength != want.ContentLength || got.Close != want.Close ||
			!reflect.DeepEqual(got.Header, want.Header) || len(want.TransferEncoding) > 0 {
			t.Fatalf("%q\nlane:     %s %s host %q length %d close %v %v\nnet/http: %s %s host %q length %d close %v %v",
				head, got.Method, got.RequestURI, got.Host, got.ContentLength, got.Close, got.Header,
				want.Method, want.RequestURI, want.Host, want.ContentLength, want.Close, want.Header)
		}
	})
}
