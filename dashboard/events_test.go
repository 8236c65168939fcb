package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// streamRecorder is a ResponseWriter whose body the test reads while the
// handler writes.
type streamRecorder struct {
	header http.Header
	mu     sync.Mutex
	body   bytes.Buffer
}

func (r *streamRecorder) Header() http.Header { return r.header }
func (r *streamRecorder) WriteHeader(int)     {}
func (r *streamRecorder) Flush()              {}
func (r *streamRecorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.Write(b)
}

// events returns the data of every complete event so far.
func (r *streamRecorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for block := range strings.SplitSeq(r.body.String(), "\n\n") {
		if !strings.HasPrefix(block, "event: sections\n") {
			continue
		}
		var data []string
		for line := range strings.SplitSeq(block, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = append(data, d)
			}
		}
		out = append(out, strings.Join(data, "\n"))
	}
	return out
}

// An open page gets the sections at once, then each snapshot Run takes,
// with what changed in between; its stream ends when Run stops.
func TestDashboardEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reporters atomic.Int32
		reporters.Store(1)
		src := SourceFunc(func(time.Time) View {
			s := SlowNode{Node: "10.0.0.5:9866"}
			for i := range reporters.Load() {
				s.Reporters = append(s.Reporters, reports.Reporter{Node: "10.0.0." + string(rune('a'+i)) + ":1", LatencyMs: 30, MedianMs: 2})
			}
			return View{SlowNodes: []SlowNode{s}}
		})
		d := New(src, Config{Interval: 2 * time.Second})
		ctx, stop := context.WithCancel(context.Background())
		defer stop() // a failure ends the stream too
		ran := make(chan error, 1)
		go func() { ran <- d.Run(ctx) }()
		synctest.Wait() // Run took its first snapshot

		rec := &streamRecorder{header: http.Header{}}
		served := make(chan struct{})
		go func() {
			d.ServeHTTP(rec, httptest.NewRequest("GET", EventsPath, nil))
			close(served)
		}()
		synctest.Wait()
		if got := rec.header.Get("Content-Type"); got != "text/event-stream" {
			t.Fatalf("Content-Type %q", got)
		}
		if ev := rec.events(); len(ev) != 1 || !strings.Contains(ev[0], "<td>1: 10.0.0.a:1</td>") {
			t.Fatalf("first events %q", ev)
		}
		if !strings.HasPrefix(rec.body.String(), "retry: 2000\n\n") {
			t.Fatalf("stream starts %q", rec.body.String()[:40])
		}
		reporters.Store(2)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		ev := rec.events()
		if len(ev) != 2 || !strings.Contains(ev[1], "<td>2: 10.0.0.a:1, 10.0.0.b:1</td>") {
			t.Fatalf("after a tick: %q", ev)
		}
		if !strings.Contains(ev[1], `<section id="slow" data-live`) || strings.Contains(ev[1], "<html") {
			t.Fatalf("an event carries the sections only: %q", ev[1])
		}
		stop()
		<-served
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
	})
}

func TestDashboardEventFraming(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := string(event([]byte(in))); got != want {
			t.Fatalf("event(%q) = %q, want %q", in, got, want)
		}
	}
	f("<p>", "event: sections\ndata: <p>\n\n")
	f("a\nb\r\nc\n", "event: sections\ndata: a\ndata: b\ndata: c\n\n")
	f("a\rb\n\nc", "event: sections\ndata: a b\ndata: \ndata: c\n\n")
}

// A stream outlives the server's write timeout: each event sets a write
// deadline of its own.
func TestDashboardEventsOutliveWriteTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a second and a half")
	}
	d := New(SourceFunc(func(time.Time) View { return View{} }), Config{Interval: 50 * time.Millisecond})
	srv := httptest.NewUnstartedServer(d)
	srv.Config.WriteTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()
	defer func() {
		stop()
		<-ran
	}()

	resp, err := http.Get(srv.URL + EventsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	lines := bufio.NewScanner(resp.Body)
	events := 0
	for time.Since(start) < 5*srv.Config.WriteTimeout && lines.Scan() {
		if lines.Text() == "event: sections" {
			events++
		}
	}
	if took := time.Since(start); took < 5*srv.Config.WriteTimeout {
		t.Fatalf("the stream ended after %v and %d events (%v), within 5 × the write timeout", took, events, lines.Err())
	}
}

// Whatever the sections hold, an event is one event whose data, read back
// as a browser reads it, is the sections with their line ends made line
// feeds and other carriage returns blanks: a node id cannot end the event
// or start a field of its own.
func FuzzDashboardEvent(f *testing.F) {
	f.Add([]byte("<p>a</p>\n<p>b</p>\n"))
	f.Add([]byte("x\n\nevent: other\ndata: y\r\n\rid: 3"))
	f.Fuzz(func(t *testing.T, sections []byte) {
		ev := string(event(sections))
		if !strings.HasPrefix(ev, "event: sections\n") || !strings.HasSuffix(ev, "\n\n") {
			t.Fatalf("event %q", ev)
		}
		body := strings.TrimSuffix(strings.TrimPrefix(ev, "event: sections\n"), "\n")
		if strings.Contains(body, "\r") || strings.Contains(body, "\n\n") && body != "\n" {
			t.Fatalf("event %q ends early or holds a carriage return", ev)
		}
		var data []string
		for line := range strings.Lines(body) {
			d, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				t.Fatalf("line %q of %q is not data", line, ev)
			}
			data = append(data, strings.TrimSuffix(d, "\n"))
		}
		want := strings.TrimSuffix(strings.ReplaceAll(strings.ReplaceAll(string(sections), "\r\n", "\n"), "\r", " "), "\n")
		if got := strings.Join(data, "\n"); got != want {
			t.Fatalf("read back %q, want %q", got, want)
		}
	})
}
