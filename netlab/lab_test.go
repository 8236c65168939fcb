package netlab

import (
	"context"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// newLab makes a lab of n hosts for the test and removes it at the end.
// Without root the test is skipped, or fails under
// SLOWPEER_REQUIRE_SERVICES=1 (CI runs as root).
func newLab(t *testing.T, n int) *Lab {
	t.Helper()
	if err := Check(); err != nil {
		testenv.Missing(t, err.Error())
	}
	l, err := Create(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close lab: %v", err)
		}
	})
	return l
}

// transfer sends size bytes over TCP from host a to host b and returns
// the bits per second it reached.
func transfer(t *testing.T, l *Lab, a, b int, size int) float64 {
	t.Helper()
	ln, err := l.Listen(b, "tcp", l.Host(b).Addr.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- -1
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		got <- n
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := l.DialContext(ctx, a, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	start := time.Now()
	if _, err := c.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n := <-got; n != int64(size) {
		t.Fatalf("host %d received %d bytes of %d", b, n, size)
	}
	return float64(size*8) / time.Since(start).Seconds()
}

// TestHostsTalkOverTheBridge: every host reaches every other one, and the
// lab's namespaces are gone after Close.
func TestHostsTalkOverTheBridge(t *testing.T) {
	l := newLab(t, 3)
	for a := range 3 {
		for b := range 3 {
			if a != b {
				transfer(t, l, a, b, 1<<16)
			}
		}
	}
	names := []string{l.switchNS}
	for _, h := range l.Hosts() {
		names = append(names, h.Namespace)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := os.Stat("/var/run/netns/" + n); err == nil {
			t.Errorf("namespace %s still there after Close", n)
		}
	}
}

// TestFaultsLimitTheRightTraffic: each kind slows exactly the traffic it
// names to about its rate. 8 Mbit/s: 512 KiB take about 0.5 s.
func TestFaultsLimitTheRightTraffic(t *testing.T) {
	const rate = 8_000_000
	const size = 512 << 10
	slowed := func(bps float64) bool { return bps < 1.5*rate }
	for _, c := range []struct {
		kind     FaultKind
		in, out  bool // 1→0 (toward the slow host 0) and 0→1 slowed
		thirdOut bool // 0→2 slowed
	}{
		{FaultReceiveRate, true, false, false},
		{FaultSendRate, false, true, true},
		{FaultLinkRate, true, true, true},
		{FaultPairRate, true, true, false},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			l := newLab(t, 3)
			if err := l.Inject(context.Background(), Fault{Kind: c.kind, Host: 0, Peer: 1, BitsPerSecond: rate}); err != nil {
				t.Fatal(err)
			}
			in, out, third := transfer(t, l, 1, 0, size), transfer(t, l, 0, 1, size), transfer(t, l, 0, 2, size)
			t.Logf("toward host 0 %.1f Mbit/s, from it to 1 %.1f, to 2 %.1f", in/1e6, out/1e6, third/1e6)
			if slowed(in) != c.in || slowed(out) != c.out || slowed(third) != c.thirdOut {
				t.Errorf("toward host 0 %.1f Mbit/s, from it to 1 %.1f, to 2 %.1f; want slowed %v %v %v",
					in/1e6, out/1e6, third/1e6, c.in, c.out, c.thirdOut)
			}
			if in < rate/4 && c.in || out < rate/4 && c.out {
				t.Errorf("limited traffic far below the rate: %.1f, %.1f Mbit/s", in/1e6, out/1e6)
			}
		})
	}
}

func TestInjectRejects(t *testing.T) {
	l := newLab(t, 2)
	ctx := context.Background()
	for _, f := range []Fault{
		{Kind: FaultSendRate, Host: 2, BitsPerSecond: 1e6},
		{Kind: FaultSendRate, Host: 0},
		{Kind: FaultPairRate, Host: 0, Peer: 0, BitsPerSecond: 1e6},
		{Kind: "slow-disk", Host: 0, BitsPerSecond: 1e6},
	} {
		if err := l.Inject(ctx, f); err == nil {
			t.Errorf("Inject(%+v) = nil, want an error", f)
		}
	}
}

// TestCleanStale: namespaces of a process that is gone are removed, ours
// and other programs' stay.
func TestCleanStale(t *testing.T) {
	l := newLab(t, 1)
	dead := Prefix + "999999999-sw"
	other := "notours-" + strings.TrimPrefix(l.switchNS, Prefix)
	for _, n := range []string{dead, other} {
		if err := run(context.Background(), "ip", "netns", "add", n); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { deleteNamespace(other); deleteNamespace(dead) })
	removed, err := CleanStale()
	if err != nil {
		t.Fatal(err)
	}
	// Another package's test binary that was killed may have left namespaces
	// of its own; those go too, so only the owners are checked.
	if !slices.Contains(removed, dead) {
		t.Errorf("CleanStale removed %q, want %q among them", removed, dead)
	}
	for _, n := range removed {
		if pid, _ := owner(n); alive(pid) {
			t.Errorf("CleanStale removed %s of the live process %d", n, pid)
		}
	}
	for _, n := range []string{other, l.switchNS, l.Host(0).Namespace} {
		if _, err := os.Stat("/var/run/netns/" + n); err != nil {
			t.Errorf("namespace %s removed: %v", n, err)
		}
	}
}

// TestForward: a listener on the machine's loopback reaches a server
// inside the lab.
func TestForward(t *testing.T) {
	l := newLab(t, 1)
	in, err := l.Listen(0, "tcp", l.Host(0).Addr.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	go func() {
		c, err := in.Accept()
		if err == nil {
			io.WriteString(c, "hello from the lab")
			c.Close()
		}
	}()
	out, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Forward(ctx, out, 0, in.Addr().String()) }()
	c, err := net.Dial("tcp", out.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(c)
	c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(b) != "hello from the lab" {
		t.Fatalf("read %q through the forward", b)
	}
}
