package netlab

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestSmallPacketsPass: while a bulk transfer fills the slow host's
// limited queue, its short answers (acknowledgements) still leave at
// once, as a host's fq_codel would let a sparse flow by.
func TestSmallPacketsPass(t *testing.T) {
	l := newLab(t, 3)
	if err := l.Inject(context.Background(), Fault{Kind: FaultSendRate, Host: 0, BitsPerSecond: 4_000_000}); err != nil {
		t.Fatal(err)
	}
	// Host 0 answers every byte it receives from host 2 with one byte.
	ln, err := l.Listen(0, "tcp", l.Host(0).Addr.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := l.DialContext(ctx, 2, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))

	bulk := make(chan float64, 1)
	go func() { bulk <- transfer(t, l, 0, 1, 1<<20) }() // 2 s at 4 Mbit/s
	time.Sleep(300 * time.Millisecond)                  // let the queue fill
	var worst time.Duration
	b := []byte{'x'}
	for range 20 {
		start := time.Now()
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	bps := <-bulk
	t.Logf("bulk from host 0 at %.1f Mbit/s; slowest 1-byte round trip %v", bps/1e6, worst)
	if bps > 6e6 {
		t.Fatalf("bulk at %.1f Mbit/s: the limit did not hold", bps/1e6)
	}
	if worst > 50*time.Millisecond {
		t.Fatalf("a 1-byte answer took %v behind the bulk data", worst)
	}
}
