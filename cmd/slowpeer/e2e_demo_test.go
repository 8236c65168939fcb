//go:build e2e

package main

import (
	"bytes"
	"context"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// watchWriter keeps what is written to it, safe for a reader on another
// goroutine, and closes seen once the text contains want.
type watchWriter struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	b    bytes.Buffer
	done bool
}

func newWatchWriter(want string) *watchWriter {
	return &watchWriter{want: want, seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if !w.done && strings.Contains(w.b.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// runDemoTest runs the demo with args until its output says stopAt (then
// it cancels the context, as Ctrl-C does) or it ends by itself, and
// returns its output once it has returned and every goroutine it started
// has ended.
func runDemoTest(t *testing.T, stopAt string, limit time.Duration, args ...string) string {
	t.Helper()
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout := newWatchWriter(stopAt)
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"demo"}, args...), strings.NewReader(""), stdout, &stderr) }()
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	var code int
	select {
	case <-stdout.seen:
		cancel()
		code = <-done
	case code = <-done:
	case <-timeout.C:
		cancel()
		<-done
		t.Fatalf("demo %v: no %q after %v:\n%s\nstderr:\n%s", args, stopAt, limit, stdout, stderr.String())
	}
	if code != 0 {
		t.Fatalf("demo %v: exit %d:\n%s\nstderr:\n%s", args, code, stdout, stderr.String())
	}
	// The demo waited for its goroutines; those of closed connections may
	// take a moment to notice.
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for runtime.NumGoroutine() > before {
		select {
		case <-poll.C:
		case <-timeout.C:
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left running after the demo (%d before):\n%s",
				runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
	}
	return stdout.String()
}

// Six agents at the production defaults, one of them 50 ms slow: the
// fast path puts it in the slow set as a slow receiver, the demo prints
// the report with it as the only member, and stops cleanly on Ctrl-C.
func TestDemoFindsSlowNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster for about 20 s")
	}
	out := runDemoTest(t, "Running until", 100*time.Second,
		"-datanodes", "6", "-slow", "2", "-slow-delay", "50ms", "-duration", "90s")
	agents := regexp.MustCompile(`(?m)^6 agents on loopback: (.*)$`).FindStringSubmatch(out)
	if agents == nil {
		t.Fatalf("no agents line:\n%s", out)
	}
	ids := strings.Fields(agents[1])
	if len(ids) != 6 {
		t.Fatalf("agents %q, want 6", ids)
	}
	slow := ids[2]
	for _, want := range []string{
		"NameNode-side service on http://127.0.0.1:",
		"Slow node: agent 2, " + slow + ", waits 50ms before it acknowledges each packet",
		"Heartbeat every 3s, each peer probed at least every 30s; slow-peer reports every 5m0s",
		"Slow set (/v1/slowset): " + slow + " ",
		"Injected slow node: " + slow + " (agent 2, -fault ack-delay=50ms: waits 50ms",
		"Other nodes in the slow set: none\n",
		"/ui/\n", "/v1/slowset\n", "/v1/suspects\n", "/slowpeers\n", "/v1/slownodes\n", "/jmx\n", "/metrics\n", "/v1/datanodes\n",
		"Stopped after ",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// A node that acknowledges late is a slow receiver: its own blocks
	// to the witnesses are not far above theirs, since a round's block
	// counts as far above only when it is also 1 ms longer.
	m := regexp.MustCompile(`Found: yes, in the slow set as (inbound) from (\d+) pairs \(the fast path's confirmation\); .*\nTime to the slow set: (\S+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("want it in the slow set as inbound, by the fast path's confirmation, and a time to the slow set:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[2]); n < 2 {
		t.Fatalf("found from %s reporters, want at least 2:\n%s", m[2], out)
	}
	// The bound is the demo's own minute; the figures are in DETECTION.md.
	t.Logf("time to the slow set with 6 agents: %s, as %s from %s reporters", m[3], m[1], m[2])
}

// Without a slow node, a demo cut short by -duration still prints the
// report, says nothing was injected, and stops by itself.
func TestDemoNoSlowNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster for 2 s")
	}
	out := runDemoTest(t, "never printed", 30*time.Second, "-datanodes", "4", "-fault", "none", "-duration", "2s")
	for _, want := range []string{
		"No slow node (-fault none)",
		"No slow nodes reported.",
		"Diagnosis (/v1/slownodes): nothing slow.",
		"Slow set (/v1/slowset): none\n",
		"Injected slow node: none (-fault none)\nNodes in the slow set: none (correct)\n",
		"Stopped after 2s.",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Running until") {
		t.Fatalf("the demo stays up after -duration:\n%s", out)
	}
}
