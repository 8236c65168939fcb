package netlab

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestCut: a cut silences an open connection between the two hosts (no
// byte, no error, for as long as it lasts) and holds new ones, leaves a
// third host reaching both, and once healed the held bytes arrive.
func TestCut(t *testing.T) {
	l := newLab(t, 3)
	ctx := context.Background()
	ln, err := l.Listen(1, "tcp", l.Host(1).Addr.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(io.LimitReader(c, 5))
		accepted <- b
	}()
	c, err := l.DialContext(ctx, 0, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := l.Cut(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatalf("a write into a cut connection failed at once: %v", err)
	}
	select {
	case b := <-accepted:
		t.Fatalf("%q crossed the cut", b)
	case <-time.After(time.Second):
	}
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	dialed := time.Now()
	if d, err := l.DialContext(dctx, 0, "tcp", ln.Addr().String()); err == nil {
		d.Close()
		t.Error("a new connection crossed the cut")
	} else if waited := time.Since(dialed); waited < 900*time.Millisecond {
		t.Errorf("a new connection across the cut failed after %v (%v): it should wait", waited, err)
	}
	cancel()
	transfer(t, l, 2, 1, 1<<10) // the third host still reaches both
	transfer(t, l, 0, 2, 1<<10)
	if err := l.Heal(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-accepted:
		if string(b) != "hello" {
			t.Fatalf("after the heal %q arrived, want hello", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held bytes did not arrive within 10s of the heal")
	}
	if err := l.Cut(ctx, 0, 0); err == nil {
		t.Error("a cut of a host from itself was taken")
	}
}
