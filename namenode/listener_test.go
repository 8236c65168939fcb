package namenode

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// dial hands l a new net.Pipe connection and returns the client end.
func dial(l *handoffListener) net.Conn {
	server, client := net.Pipe()
	l.conns <- server
	return client
}

// isClosed reports whether the server end of client was closed.
func isClosed(client net.Conn) bool {
	client.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := client.Read(make([]byte, 1))
	return errors.Is(err, io.EOF)
}

// Over the cap, the connection outside a request the longest is closed;
// one inside a request never is: the new one waits for it to leave.
func TestLimitListenerEvictsIdleOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl := newHandoffListener(&net.TCPAddr{})
		l := newLimitListener(pl, 2)
		type accepted struct {
			c   net.Conn
			err error
		}
		accept := func() chan accepted {
			ch := make(chan accepted, 1)
			go func() {
				c, err := l.Accept()
				ch <- accepted{c, err}
			}()
			return ch
		}
		get := func(ch chan accepted) *limitedConn {
			t.Helper()
			synctest.Wait()
			select {
			case a := <-ch:
				if a.err != nil {
					t.Fatal(a.err)
				}
				return a.c.(*limitedConn)
			default:
				t.Fatal("Accept still waits")
				return nil
			}
		}
		ch := accept()
		c1 := dial(pl)
		lc1 := get(ch)
		time.Sleep(time.Second) // lc1 is older than lc2
		ch = accept()
		c2 := dial(pl)
		lc2 := get(ch)
		lc1.arrived()
		lc2.arrived()

		// Both inside a request: the third waits, nobody is closed.
		ch = accept()
		c3 := dial(pl)
		synctest.Wait()
		if len(ch) != 0 || l.evicted.Load() != 0 || isClosed(c1) || isClosed(c2) {
			t.Fatal("a connection inside a request was closed, or the cap was passed")
		}
		// lc2 leaves its request (keep-alive): it is the one closed.
		lc2.leave(true)
		lc3 := get(ch)
		if !isClosed(c2) || isClosed(c1) || l.evicted.Load() != 1 || l.open() != 2 {
			t.Fatalf("evicted %d, open %d; want c2 closed, c1 open", l.evicted.Load(), l.open())
		}
		// Closing the listener ends an Accept that waits for a slot.
		lc3.arrived()
		ch = accept()
		c4 := dial(pl)
		synctest.Wait()
		l.Close()
		synctest.Wait()
		if a := <-ch; !errors.Is(a.err, net.ErrClosed) || !isClosed(c4) {
			t.Fatalf("Accept after Close = %v", a.err)
		}
		lc1.Close()
		lc1.Close() // gives its slot back once
		if l.open() != 1 {
			t.Fatalf("open = %d after closing one of two", l.open())
		}
		c1.Close()
		c3.Close()
	})
}

// The load test of issue 9: 600 connections that dribble their headers
// against a cap of 500 (and a header timeout of a minute), then a normal
// heartbeat must be answered at once.
func TestConnectionCapKeepsHeartbeatsIn(t *testing.T) {
	const dribblers, capacity = 600, 500
	s, _, _ := newTestServer(t, func(c *Config) {
		c.MaxConnections = capacity
		c.HeaderReadTimeout = time.Minute
	})
	base, _ := serve(t, s)
	// The dribblers go on, a byte each, while the heartbeat is sent.
	_, stop := dribble(t, strings.TrimPrefix(base, "http://"), dribblers, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: nn\r\nX-Slow: ", HeartbeatPath))
	defer stop()
	took := heartbeatOnNewConn(t, base, 20*time.Second)
	// The bound: far below the header timeout the dribblers would hold
	// their slots for.
	if took > 5*time.Second {
		t.Fatalf("heartbeat answered after %v", took)
	}
	l := s.conns.Load()
	if open := l.open(); open > capacity {
		t.Fatalf("%d connections open, cap %d", open, capacity)
	}
	if n := l.evicted.Load(); n < dribblers-capacity {
		t.Fatalf("%d connections evicted, want at least %d", n, dribblers-capacity)
	}
	t.Logf("heartbeat answered in %v with %d dribbling connections, cap %d, %d evicted", took, dribblers, capacity, l.evicted.Load())
	if s.DataNodes().Len() != 1 {
		t.Fatal("heartbeat not applied")
	}
}
