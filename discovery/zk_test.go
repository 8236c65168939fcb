package discovery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// zkWait bounds every wait for ZooKeeper in the tests; the waits
// themselves are event-driven.
const zkWait = 30 * time.Second

// testSessionTimeout is the shortest session the test ZooKeeper grants
// (2 ticks of 500ms, scripts/services).
const testSessionTimeout = time.Second

// zkServers returns the test ZooKeeper (scripts/services starts one), or
// skips the test as testenv does.
func zkServers(t testing.TB) []string {
	t.Helper()
	return testenv.ZooKeeper(t)
}

// start runs a component's Run in a goroutine of the test; stop cancels
// its context and returns Run's result (once; the test's cleanup calls
// it too).
func start(t testing.TB, run func(context.Context) error) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	stop = sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return stop
}

// zkRoot returns a namespace of the test's own ("slowpeer-test-…"), so
// runs and packages never collide, and deletes it at the end.
func zkRoot(t testing.TB, servers []string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	root := "slowpeer-test-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		c := zkConnect(t, servers, 10*time.Second, nil)
		defer c.Close()
		if err := zkDeleteAll(c, "/"+root); err != nil {
			t.Errorf("clean up /%s: %v", root, err)
		}
	})
	return root
}

func zkDeleteAll(c *zk.Conn, p string) error {
	children, _, err := c.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, child := range children {
		if err := zkDeleteAll(c, path.Join(p, child)); err != nil {
			return err
		}
	}
	if err := c.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}

// zkConnect returns a client with a session (it waits for it).
func zkConnect(t testing.TB, servers []string, timeout time.Duration, dial zk.Dialer) *zk.Conn {
	t.Helper()
	if dial == nil {
		dial = net.DialTimeout
	}
	c, events, err := zk.Connect(servers, timeout, zk.WithDialer(dial), zk.WithLogger(zkLogger{testLogger(t)}))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(zkWait)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				go func() {
					for range events {
					}
				}()
				return c
			}
		case <-deadline:
			c.Close()
			t.Fatalf("no zookeeper session with %v within %v", servers, zkWait)
		}
	}
}

// zkWaitChildren waits, watching, until cond holds for the children of p
// (nil when p does not exist), and returns them.
func zkWaitChildren(t testing.TB, c *zk.Conn, p string, what string, cond func([]string) bool) []string {
	t.Helper()
	deadline := time.After(zkWait)
	for {
		children, _, ch, err := c.ChildrenW(p)
		if errors.Is(err, zk.ErrNoNode) {
			var ok bool
			ok, _, ch, err = c.ExistsW(p)
			if ok {
				continue
			}
		}
		if err != nil {
			t.Fatalf("watch %s: %v", p, err)
		}
		if cond(children) {
			return children
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: not within %v; children of %s: %q", what, zkWait, p, children)
		}
	}
}

// zkWaitGone waits, watching, until znode p does not exist.
func zkWaitGone(t testing.TB, c *zk.Conn, p string) {
	t.Helper()
	deadline := time.After(zkWait)
	for {
		ok, _, ch, err := c.ExistsW(p)
		if err != nil {
			t.Fatalf("watch %s: %v", p, err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s still exists after %v", p, zkWait)
		}
	}
}

// gate is a zk.Dialer the test can cut, as a network partition: cut
// closes the connections it made and refuses new ones until heal.
type gate struct {
	mu     sync.Mutex
	cutOff bool
	conns  []net.Conn
}

func (g *gate) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cutOff {
		return nil, errors.New("test partition")
	}
	c, err := net.DialTimeout(network, address, timeout)
	if err == nil {
		g.conns = append(g.conns, c)
	}
	return c, err
}

func (g *gate) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cutOff = true
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

func (g *gate) heal() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cutOff = false
}

// fakeHS2 registers the way HiveServer2 does: a session of its own,
// /<namespace> created persistent (with its parents) when missing, then
// an EPHEMERAL_SEQUENTIAL child named serverUri=…;version=…;sequence=
// holding its configs. Reference: ZooKeeperHiveHelper.addServerInstanceToZooKeeper.
type fakeHS2 struct {
	conn *zk.Conn
	gate *gate
	path string // the znode, with its counter
}

func registerHS2(t testing.TB, servers []string, namespace, serverURI, version string, data []byte) *fakeHS2 {
	t.Helper()
	g := &gate{}
	c := zkConnect(t, servers, testSessionTimeout, g.dial)
	t.Cleanup(c.Close)
	at := ""
	for part := range strings.SplitSeq(namespace, "/") {
		at += "/" + part
		if _, err := c.Create(at, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatalf("create %s: %v", at, err)
		}
	}
	prefix := at + "/serverUri=" + serverURI + ";version=" + version + ";sequence="
	p, err := c.Create(prefix, data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("register %s: %v", serverURI, err)
	}
	return &fakeHS2{conn: c, gate: g, path: p}
}

// hs2Configs is what HiveServer2 (Hive 3, binary transport, no Kerberos)
// publishes as its znode's data. Reference: HiveServer2.addConfsToPublish.
func hs2Configs(host string, port int) []byte {
	return []byte("hive.server2.thrift.sasl.qop=auth;hive.server2.thrift.bind.host=" + host +
		";hive.server2.transport.mode=binary;hive.server2.authentication=NONE;hive.server2.thrift.port=" +
		strconv.Itoa(port) + ";hive.server2.use.SSL=false")
}

// testLogger sends logs to the test's log until the test ends
// (go-zookeeper's goroutines may log a little after Close).
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSuffix(string(b), "\n"))
	}
	return len(b), nil
}
