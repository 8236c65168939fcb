//go:build unix

package namenode

import (
	"net"
	"syscall"
)

// readiness waits until a connection has a byte to read, its end, or an
// error, without reading it and with no buffer.
type readiness struct {
	rc    syscall.RawConn // nil: not a socket, readable at once
	check func(fd uintptr) bool
	woken bool
}

func newReadiness(c net.Conn) *readiness {
	r := &readiness{}
	if sc, ok := c.(syscall.Conn); ok {
		r.rc, _ = sc.SyscallConn()
	}
	var one [1]byte
	r.check = func(fd uintptr) bool {
		if r.woken { // the poller said so
			return true
		}
		r.woken = true
		for {
			_, _, err := syscall.Recvfrom(int(fd), one[:], syscall.MSG_PEEK)
			switch err {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the poller wakes us when a byte comes
			}
			return true // a byte, the end, or an error the read will meet
		}
	}
	return r
}

// wait returns once the connection is readable, or the error of its
// deadline or of its closing.
func (r *readiness) wait() error {
	if r.rc == nil {
		return nil
	}
	r.woken = false
	return r.rc.Read(r.check)
}
