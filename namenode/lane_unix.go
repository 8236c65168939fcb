//go:build unix

package namenode

import (
	"net"
	"syscall"
)

// waitReadable waits until c has a byte to read, its end, or an error,
// without reading it and with no buffer; it returns the deadline's or the
// closing's error. A connection that is not a socket is readable at once.
func waitReadable(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var one [1]byte
	return rc.Read(func(fd uintptr) bool {
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
	})
}
