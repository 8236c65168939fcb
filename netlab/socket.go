package netlab

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// inNamespace runs fn on an OS thread that has joined the namespace name.
// Sockets fn opens belong to that namespace for good. The thread is never
// given back to the runtime (the goroutine ends locked, so Go discards the
// thread), so no other goroutine ever runs in the namespace.
func inNamespace(name string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/var/run/netns/" + name)
		if err != nil {
			errc <- fmt.Errorf("netlab: open namespace %s: %w", name, err)
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("netlab: join namespace %s: %w", name, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Listen listens on addr inside host i's namespace.
func (l *Lab) Listen(i int, network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inNamespace(l.hosts[i].Namespace, func() (err error) {
		ln, err = net.Listen(network, addr)
		return err
	})
	return ln, err
}

// DialContext dials addr from inside host i's namespace.
func (l *Lab) DialContext(ctx context.Context, i int, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNamespace(l.hosts[i].Namespace, func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Forward serves ln, in this process's own namespace (the machine's
// loopback, say), by relaying every connection to target dialed from
// inside host i: so a browser or curl on the machine reaches a server in
// the lab. It returns when ctx ends, after closing ln and every relay.
func (l *Lab) Forward(ctx context.Context, ln net.Listener, i int, target string) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("netlab: forward to %s: %w", target, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.relay(ctx, c, i, target)
		}()
	}
}

func (l *Lab) relay(ctx context.Context, c net.Conn, i int, target string) {
	defer c.Close()
	up, err := l.DialContext(ctx, i, "tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	stop := context.AfterFunc(ctx, func() { c.Close(); up.Close() })
	defer stop()
	done := make(chan struct{})
	go func() {
		io.Copy(up, c)
		up.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	io.Copy(c, up)
	c.(*net.TCPConn).CloseWrite()
	<-done
}
