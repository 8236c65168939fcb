package discovery

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
	"unicode"

	"github.com/go-zookeeper/zk"
)

// DefaultSessionTimeout is the ZooKeeper session timeout of a Watcher and
// a Publisher. It bounds how long the znodes of a Publisher that died
// without closing stay visible to JDBC clients. ZooKeeper clamps it
// between 2 and 20 ticks (4s and 40s with its default tickTime of 2s).
const DefaultSessionTimeout = 10 * time.Second

// maxZKBuffer bounds what one ZooKeeper reply may hold (the Java client's
// jute.maxbuffer default): children lists and data are outside input.
const maxZKBuffer = 1 << 20

// session is one ZooKeeper client connection and the goroutine that
// drains (and logs) its session events. go-zookeeper reconnects by itself,
// to the same session while it lives and to a new one after it expired.
type session struct {
	conn *zk.Conn
	done chan struct{} // closed when go-zookeeper's goroutines have ended
}

// connect starts a ZooKeeper client for servers ("host:port", the port
// defaults to 2181). It does not wait for the connection.
func connect(servers []string, timeout time.Duration, dialer zk.Dialer, log *slog.Logger) (*session, error) {
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, events, err := zk.Connect(servers, timeout, zk.WithDialer(dialer),
		zk.WithLogger(zkLogger{log}), zk.WithMaxBufferSize(maxZKBuffer))
	if err != nil {
		return nil, fmt.Errorf("connect to zookeeper %s: %w", strings.Join(servers, ","), err)
	}
	s := &session{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for ev := range events {
			if ev.Type != zk.EventSession {
				continue
			}
			switch ev.State {
			case zk.StateExpired:
				log.Warn("zookeeper session expired; starting a new one", "server", ev.Server)
			case zk.StateHasSession:
				log.Info("zookeeper session", "id", fmt.Sprintf("%#x", conn.SessionID()), "server", ev.Server)
			case zk.StateDisconnected:
				log.Debug("zookeeper disconnected", "server", ev.Server)
			}
		}
	}()
	return s, nil
}

// close ends the session (its ephemeral znodes go at once) and waits for
// go-zookeeper's goroutines.
func (s *session) close() {
	s.conn.Close()
	<-s.done
}

// zkLogger sends go-zookeeper's own messages (connected, reconnecting) to
// slog at debug level; session changes are logged from the events.
type zkLogger struct{ log *slog.Logger }

func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug("zookeeper: " + fmt.Sprintf(format, args...))
}

// ParseServers splits a ZooKeeper ensemble as the -hs2-zookeeper flag and
// Hive's hive.zookeeper.quorum write it, "host:port,host:port" (a host
// without port means 2181), and checks it. Spaces around entries are
// dropped; an empty entry is an error.
func ParseServers(s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	if err := checkServers(parts); err != nil {
		return nil, fmt.Errorf("zookeeper servers %q: %w", s, err)
	}
	return parts, nil
}

// checkServers checks a ZooKeeper ensemble list.
func checkServers(servers []string) error {
	if len(servers) == 0 {
		return errors.New("no zookeeper server")
	}
	for _, s := range servers {
		if s == "" || strings.IndexFunc(s, unicode.IsSpace) >= 0 || strings.ContainsAny(s, ",/") {
			return fmt.Errorf("zookeeper server %q is not host:port", s)
		}
	}
	return nil
}

// namespacePath turns a namespace, as hive.server2.zookeeper.namespace
// and the JDBC URL's zooKeeperNamespace name it ("hiveserver2", or
// "a/b"), into its znode path ("/hiveserver2"). Leading and trailing
// slashes are dropped, as Curator's ZKPaths.makePath drops them.
func namespacePath(ns string) (string, error) {
	trimmed := strings.Trim(ns, "/")
	if trimmed == "" {
		return "", fmt.Errorf("namespace %q is empty", ns)
	}
	for part := range strings.SplitSeq(trimmed, "/") {
		if part == "" || part == "." || part == ".." {
			return "", fmt.Errorf("namespace %q has an empty, . or .. part", ns)
		}
		for _, c := range part {
			if c < ' ' || c >= 0x7f && c <= 0x9f || c >= 0xd800 && c <= 0xf8ff || c >= 0xfff0 && c <= 0xffff {
				return "", fmt.Errorf("namespace %q has a character zookeeper refuses", ns)
			}
		}
	}
	if trimmed == "zookeeper" || strings.HasPrefix(trimmed, "zookeeper/") {
		return "", fmt.Errorf("namespace %q is zookeeper's own", ns)
	}
	return "/" + trimmed, nil
}

// retryDelay is how long a loop waits after a failed ZooKeeper call: go-
// zookeeper itself waits a second between rounds of connection attempts,
// so this only keeps a failing call from spinning.
const (
	minRetryDelay = 100 * time.Millisecond
	maxRetryDelay = 5 * time.Second
)

func nextRetryDelay(d time.Duration) time.Duration {
	return min(max(2*d, minRetryDelay), maxRetryDelay)
}
