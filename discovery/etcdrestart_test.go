package discovery

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// ownEtcd is an etcd of the test's own, which it may kill and start
// again on the same data (scripts/services starts it the same way).
type ownEtcd struct {
	t          *testing.T
	bin, dir   string
	client     string // host:port
	peer       string
	cmd        *exec.Cmd
	exited     chan struct{}
	logFile    *os.File
	clientConn *clientv3.Client
}

func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startOwnEtcd(t *testing.T) *ownEtcd {
	t.Helper()
	e := &ownEtcd{t: t, bin: testenv.Command(t, "etcd"), dir: t.TempDir(),
		client: freeLoopbackPort(t), peer: freeLoopbackPort(t)}
	e.start()
	t.Cleanup(e.kill)
	return e
}

func (e *ownEtcd) start() {
	e.t.Helper()
	log, err := os.OpenFile(filepath.Join(e.dir, "etcd.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	e.cmd = exec.Command(e.bin, "--name", "own", "--data-dir", filepath.Join(e.dir, "data"),
		"--listen-client-urls", "http://"+e.client, "--advertise-client-urls", "http://"+e.client,
		"--listen-peer-urls", "http://"+e.peer, "--initial-advertise-peer-urls", "http://"+e.peer,
		"--initial-cluster", "own=http://"+e.peer)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		e.t.Fatalf("start etcd: %v", err)
	}
	e.exited = make(chan struct{})
	go func() { e.cmd.Wait(); log.Close(); close(e.exited) }()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.client}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(zkWait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Get(ctx, "health")
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("own etcd not up within %v: %v", zkWait, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.clientConn = c
}

// kill ends etcd with SIGKILL, if it runs.
func (e *ownEtcd) kill() {
	if e.clientConn != nil {
		e.clientConn.Close()
		e.clientConn = nil
	}
	select {
	case <-e.exited:
		return
	default:
	}
	e.cmd.Process.Kill()
	<-e.exited
}

// An etcd that dies and comes back on the same data: the watcher keeps
// the last set meanwhile, then follows what changed after the restart.
func TestEtcdWatcherSurvivesEtcdRestart(t *testing.T) {
	e := startOwnEtcd(t)
	ns := "kyuubi"
	registerKyuubi(t, e.clientConn, ns, "127.0.0.1:10009", "1.9.0", 0)
	w, changes := newTestEtcdWatcher(t, []string{e.client}, ns, nil)
	waitEtcdServers(t, w, changes, "127.0.0.1:10009")

	e.kill()
	e.start()
	if got := w.Servers(); len(got) != 1 {
		t.Fatalf("across the restart the watcher shows %q, want the last set", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.clientConn.Delete(ctx, fmt.Sprintf("/%s/serverUri=127.0.0.1:10009;version=1.9.0;sequence=%010d", ns, 0)); err != nil {
		t.Fatal(err)
	}
	registerKyuubi(t, e.clientConn, ns, "127.0.0.1:10010", "1.9.0", 0)
	d := waitEtcdServers(t, w, changes, "127.0.0.1:10010")
	t.Logf("after etcd came back the watcher followed a change within %v", d)
}
