//go:build !unix

package namenode

import "net"

// waitReadable returns at once where the lane cannot wait without a
// buffer: the read buffer is then held while a connection idles.
func waitReadable(net.Conn) error { return nil }
