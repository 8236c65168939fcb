package namenode

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// serve starts s.Serve on 127.0.0.1:0 and returns its base URL and a
// function that stops it and returns Serve's result.
func serve(t *testing.T, s *Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	stop := sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String(), stop
}

// onMessage is a slog.Handler that closes a channel when a record with
// a given message passes, and hands every record on.
type onMessage struct {
	slog.Handler
	msg  string
	once *sync.Once
	seen chan struct{}
}

func (h onMessage) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return h.Handler.Handle(ctx, r)
}

func TestServeAndShutdown(t *testing.T) {
	logs := &logBuffer{}
	shuttingDown := make(chan struct{})
	s, _, _ := newTestServer(t, func(c *Config) {
		c.Logger = slog.New(onMessage{slog.NewTextHandler(logs, nil), "shutting down", new(sync.Once), shuttingDown})
	})
	entered, release := make(chan struct{}), make(chan struct{})
	s.Handle("GET", "/v1/test/hold", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "finished")
	}))
	base, stop := serve(t, s)

	resp, err := http.Post(base+HeartbeatPath, "application/json", strings.NewReader(`{"node":"10.0.0.2:9866"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"slow":false}` {
		t.Fatalf("heartbeat over TCP: %d %s", resp.StatusCode, body)
	}

	// A request in flight when the context ends finishes, and Serve
	// waits for it.
	held := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/v1/test/hold")
		if err != nil {
			held <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		held <- string(b)
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	<-shuttingDown
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned %v with a request in flight", err)
	default:
	}
	close(release)
	if got := <-held; got != "finished" {
		t.Fatalf("in-flight request: %q", got)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// Warned once that the service is open.
	if n := strings.Count(logs.String(), "no auth token"); n != 1 {
		t.Fatalf("open-service warning logged %d times:\n%s", n, logs)
	}
}

func TestServeShutdownTimeout(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.ShutdownTimeout = 20 * time.Millisecond })
	entered := make(chan struct{})
	s.Handle("GET", "/v1/test/stuck", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done() // until the server cuts the connection
	}))
	base, stop := serve(t, s)
	go func() {
		if resp, err := http.Get(base + "/v1/test/stuck"); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "requests still running after 20ms") ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Serve = %v, want a shutdown timeout", err)
	}
}

func TestServeListenerError(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := s.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "serve http on 127.0.0.1:") {
		t.Fatalf("Serve on a closed listener = %v", err)
	}
}

func TestRunListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, _, _ := newTestServer(t, func(c *Config) { c.Listen = ln.Addr().String() })
	if err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "listen on "+ln.Addr().String()) {
		t.Fatalf("Run on a taken port = %v", err)
	}
}

func TestServeWithTokenDoesNotWarn(t *testing.T) {
	s, _, logs := newTestServer(t, func(c *Config) { c.AuthToken = "t" })
	_, stop := serve(t, s)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "no auth token") {
		t.Fatal("warned about an open service that has a token")
	}
}

// TestRunSteps drives the periodic Step with synctest's clock: reports expire
// and dead nodes are logged once.
func TestRunSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logBuffer{}
		cfg := DefaultConfig()
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
		s, err := New(cfg) // Now is time.Now: synctest's fake clock
		if err != nil {
			t.Fatal(err)
		}
		mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866"))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { s.runSteps(ctx); close(done) }()

		time.Sleep(cfg.DeadAfter() + cfg.HeartbeatInterval)
		synctest.Wait()
		if n := strings.Count(logs.String(), `msg="datanodes are dead" deadAfter=10m30s count=1 nodes=10.0.0.2:9866`); n != 1 {
			t.Fatalf("death logged %d times:\n%s", n, logs)
		}
		if s.Tracker().Entries() != 1 {
			t.Fatal("report deleted before it expired")
		}
		time.Sleep(cfg.ReportValidity())
		synctest.Wait()
		if n := s.Tracker().Entries(); n != 0 {
			t.Fatalf("%d entries left after expiry", n)
		}
		if n := strings.Count(logs.String(), "datanodes are dead"); n != 1 {
			t.Fatalf("death logged %d times", n)
		}
		cancel()
		<-done
	})
}

func TestStep(t *testing.T) {
	s, clock, _ := newTestServer(t, nil)
	mustHeartbeat(t, s, report("10.0.0.2:9866", "10.0.0.5:9866", "10.0.0.6:9866"))
	clock.Advance(s.Config().DeadAfter() + 1)
	mustHeartbeat(t, s, reports.Heartbeat{Node: "10.0.0.3:9866"})
	got := s.Step(clock.Now())
	if got.Expired != 0 || len(got.Died) != 1 || got.Died[0] != "10.0.0.2:9866" {
		t.Fatalf("Step = %+v", got)
	}
	clock.Advance(s.Config().ReportValidity())
	got = s.Step(clock.Now())
	if got.Expired != 2 || len(got.Died) != 1 || got.Died[0] != "10.0.0.3:9866" {
		t.Fatalf("second Step = %+v", got)
	}
}
