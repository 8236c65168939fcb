package discovery

import (
	"io"
	"net"
	"sync"
	"testing"
)

// freezer is a TCP relay to one server that the test can freeze: while
// frozen it moves no byte either way and answers no new connection,
// though every connection stays open, as a network partition looks to
// both ends (nothing is refused, nothing arrives). Thawed, what was held
// flows again, as TCP delivers it after the partition heals.
type freezer struct {
	Addr string // where clients connect

	mu     sync.Mutex
	frozen bool
	thawed *sync.Cond
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{Addr: ln.Addr().String()}
	f.thawed = sync.NewCond(&f.mu)
	var wg sync.WaitGroup
	var conns sync.Map
	t.Cleanup(func() {
		ln.Close()
		f.thaw()
		conns.Range(func(c, _ any) bool { c.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Store(c, nil)
			wg.Go(func() {
				f.wait()
				up, err := net.Dial("tcp", target)
				if err != nil {
					c.Close()
					return
				}
				conns.Store(up, nil)
				wg.Go(func() { f.copy(up, c); up.Close() })
				f.copy(c, up)
				c.Close()
			})
		}
	})
	return f
}

// copy relays src to dst, holding every chunk while frozen.
func (f *freezer) copy(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *freezer) wait() {
	f.mu.Lock()
	for f.frozen {
		f.thawed.Wait()
	}
	f.mu.Unlock()
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
}

func (f *freezer) thaw() {
	f.mu.Lock()
	f.frozen = false
	f.thawed.Broadcast()
	f.mu.Unlock()
}
