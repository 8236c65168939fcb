package discovery

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// proxy forwards TCP connections to a registry server until cut.
type proxy struct {
	ln     net.Listener
	target string
	down   atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

// cut closes every connection and refuses new ones until heal.
func (p *proxy) cut() {
	p.down.Store(true)
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
}

func (p *proxy) heal() { p.down.Store(false) }

// syncBuffer is a log both the test and the registry use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) contains(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Contains(s.b.Bytes(), []byte(sub))
}

// Follow reports replicas as they come and go, and keeps the last set,
// saying so, while the registry is out of reach.
func TestRegistryFollow(t *testing.T) {
	for _, kind := range []string{ZooKeeperKind, EtcdKind} {
		t.Run(kind, func(t *testing.T) {
			u := testRegistry(t, kind)
			var running atomic.Int32
			var overlap atomic.Bool
			r1 := startReplica(t, u, 9201, &running, &overlap)
			startReplica(t, u, 9202, &running, &overlap)
			p := newProxy(t, u.Servers[0])
			via := u
			via.Servers = []string{p.ln.Addr().String()}
			var logs syncBuffer
			g, err := OpenRegistry(via, 2*time.Second, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			var mu sync.Mutex
			var calls [][]string
			last := func() []string {
				mu.Lock()
				defer mu.Unlock()
				if len(calls) == 0 {
					return nil
				}
				return slices.Sorted(slices.Values(calls[len(calls)-1]))
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- g.Follow(ctx, func(ms []Member) {
					mu.Lock()
					calls = append(calls, MemberURLs(ms))
					mu.Unlock()
				})
			}()
			both := []string{"http://127.0.0.1:9201", "http://127.0.0.1:9202"}
			testenv.WaitFor(t, "both replicas", 10*time.Second, func() bool { return slices.Equal(last(), both) })
			r1.stop()
			testenv.WaitFor(t, "one replica", 10*time.Second, func() bool { return slices.Equal(last(), both[1:]) })
			mu.Lock()
			n := len(calls)
			mu.Unlock()
			p.cut()
			testenv.WaitFor(t, "the log to say the registry is out of reach", 15*time.Second, func() bool {
				return logs.contains("keeping the last known replicas")
			})
			mu.Lock()
			if len(calls) != n {
				t.Errorf("while out of reach Follow reported %q", calls[n:])
			}
			mu.Unlock()
			p.heal()
			startReplica(t, u, 9203, &running, &overlap)
			testenv.WaitFor(t, "the new replica after the registry came back", 20*time.Second, func() bool {
				return slices.Equal(last(), []string{"http://127.0.0.1:9202", "http://127.0.0.1:9203"})
			})
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
