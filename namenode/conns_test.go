package namenode

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// dribble opens n connections to addr, each sending start and then a
// byte at a time, round robin, each write bounded to 10 ms; a connection
// the server closed is opened again, as a hostile client would. It
// returns how many connections it opened so far, and stop, which ends it
// and closes them all.
func dribble(t *testing.T, addr string, n int, start string) (opened *atomic.Int64, stop func()) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < uint64(2*n+200) {
		t.Skipf("needs %d open files, the limit is %d", 2*n+200, lim.Cur)
	}
	opened = new(atomic.Int64)
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return nil
		}
		opened.Add(1)
		c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte(start)); err != nil {
			c.Close()
			return nil
		}
		return c
	}
	conns := make([]net.Conn, n)
	for i := range conns {
		if conns[i] = dial(); conns[i] == nil {
			t.Fatalf("dial %d of %d failed", i, n)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() {
			for _, c := range conns {
				if c != nil {
					c.Close()
				}
			}
		}()
		for {
			for i, c := range conns {
				select {
				case <-done:
					return
				default:
				}
				if c == nil {
					conns[i] = dial()
					continue
				}
				c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
				if _, err := c.Write([]byte("x")); err != nil && !isTimeout(err) {
					c.Close()
					conns[i] = dial()
				}
			}
		}
	})
	return opened, func() { close(done); wg.Wait() }
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// heartbeatOnNewConn sends one heartbeat on a connection of its own and
// returns how long the answer took.
func heartbeatOnNewConn(t *testing.T, base string, bound time.Duration) time.Duration {
	t.Helper()
	client := &http.Client{Timeout: bound, Transport: &http.Transport{DisableKeepAlives: true}}
	body := []byte(`{"node":"10.0.0.1:9866","slowPeers":[]}`)
	start := time.Now()
	resp, err := client.Post(base+HeartbeatPath, "application/json", bytes.NewReader(body))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("heartbeat under the flood: %v after %v", err, took)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("heartbeat under the flood: %d", resp.StatusCode)
	}
	return took
}

// 400 connections that send a heartbeat's header at once and its body a
// byte at a time, against a cap of 200: a heartbeat on a new connection
// is still answered, well before the dribblers' body deadline.
func TestBodyDribblersKeepHeartbeatsIn(t *testing.T) {
	const dribblers, capacity = 400, 200
	s, _, _ := newTestServer(t, func(c *Config) { c.MaxConnections = capacity })
	base, _ := serve(t, s)
	addr := strings.TrimPrefix(base, "http://")
	opened, stop := dribble(t, addr, dribblers, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\n\r\n", HeartbeatPath, MaxHeartbeatBytes))
	defer stop()
	l := s.conns.Load()
	for deadline := time.Now().Add(10 * time.Second); l.open() < capacity; {
		if time.Now().After(deadline) {
			t.Fatalf("the dribblers hold %d connections, want %d", l.open(), capacity)
		}
		time.Sleep(10 * time.Millisecond)
	}
	took := heartbeatOnNewConn(t, base, time.Minute)
	if open := l.open(); open > capacity {
		t.Fatalf("%d connections open, cap %d", open, capacity)
	}
	if took > 5*time.Second { // generous: 1 s is the target on a busy machine
		t.Fatalf("heartbeat answered after %v", took)
	}
	t.Logf("heartbeat answered in %v with %d body-dribbling connections (%d opened), cap %d, %d evicted",
		took, dribblers, opened.Load(), capacity, l.evicted.Load())
	if s.DataNodes().Len() != 1 {
		t.Fatal("heartbeat not applied")
	}
}

// A client that dribbles a body, alone, is cut off once the header's and
// the body's timeouts have passed, whatever the cap.
func TestBodyReadTimeout(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) {
		c.HeaderReadTimeout = 100 * time.Millisecond
		c.BodyReadTimeout = 200 * time.Millisecond
	})
	base, _ := serve(t, s)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: nn\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", HeartbeatPath)
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		c.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte(" ")); err != nil {
			t.Logf("cut off after %v: %v", time.Since(start), err)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("a client dribbling a body was not cut off")
}

// Requests other than heartbeats hold at most three quarters of the cap
// inside handlers: over it they get 429 at once, and heartbeats and the
// health paths still get in.
func TestHeartbeatShare(t *testing.T) {
	const capacity = 8 // others: 6
	s, _, _ := newTestServer(t, func(c *Config) { c.MaxConnections = capacity })
	release := make(chan struct{})
	var inside sync.WaitGroup
	s.Handle(http.MethodGet, "/block", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inside.Done()
		<-release
	}))
	base, _ := serve(t, s)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) int {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var blocked sync.WaitGroup
	inside.Add(capacity - capacity/4)
	for range capacity - capacity/4 {
		blocked.Go(func() { get("/block") })
	}
	inside.Wait()
	if code := get(SlowPeersPath); code != http.StatusTooManyRequests {
		t.Fatalf("GET /slowpeers with the others' share full: %d, want 429", code)
	}
	if code := get(HealthzPath); code != http.StatusOK {
		t.Fatalf("GET /healthz: %d", code)
	}
	heartbeatOnNewConn(t, base, 10*time.Second)
	close(release)
	blocked.Wait()
	if code := get(SlowPeersPath); code != http.StatusOK {
		t.Fatalf("GET /slowpeers after: %d", code)
	}
}

func TestOpenFilesCap(t *testing.T) {
	f := func(configured int, limit uint64, want int) {
		t.Helper()
		if got := openFilesCap(configured, limit); got != want {
			t.Errorf("openFilesCap(%d, %d) = %d, want %d", configured, limit, got, want)
		}
	}
	f(DefaultMaxConnections, 0, DefaultMaxConnections) // unknown
	f(DefaultMaxConnections, 65536, DefaultMaxConnections)
	f(DefaultMaxConnections, 1024, 768)
	f(51024, 65536, 49152)
	f(200, 1024, 200)
	f(200, 100, 36)
	f(200, 64, 1)
	// Go raised the soft limit to the hard one at start (what the cap
	// relies on).
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur+1 < lim.Max {
		t.Errorf("soft limit %d, hard %d: not raised", lim.Cur, lim.Max)
	}
}

// With fewer files to open than the cap needs, Serve lowers the cap and
// says so. The limit is lowered in a child process of the test: hard and
// soft alike, as a unit's LimitNOFILE sets them.
func TestConnectionCapFollowsOpenFiles(t *testing.T) {
	if os.Getenv("SLOWPEER_TEST_NOFILE") == "512" {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 512, Max: 512}); err != nil {
			t.Fatal(err)
		}
		s, _, logs := newTestServer(t, nil)
		base, stop := serve(t, s)
		heartbeatOnNewConn(t, base, 10*time.Second) // Serve has its listener
		if got := cap(s.conns.Load().slots); got != 384 {
			t.Fatalf("cap %d with 512 files, want 384", got)
		}
		stop()
		if !strings.Contains(logs.String(), `msg="connection cap lowered to what the process may open" key=slowpeer.namenode.max.connections configured=16384 cap=384 openFilesLimit=512`) {
			t.Fatalf("no line says the cap was lowered:\n%s", logs)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestConnectionCapFollowsOpenFiles$")
	cmd.Env = append(os.Environ(), "SLOWPEER_TEST_NOFILE=512")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
