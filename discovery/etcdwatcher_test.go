package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// etcdClient connects to the test etcd and returns a namespace of the
// test's own, whose keys (and those of its engine spaces) are deleted at
// the end.
func etcdClient(t *testing.T) (*clientv3.Client, []string, string) {
	t.Helper()
	endpoints := testenv.Etcd(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("slowpeer-test-%s-%d/kyuubi", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		root, _, _ := strings.Cut(ns, "/")
		if _, err := c.Delete(ctx, "/"+root, clientv3.WithPrefix()); err != nil {
			t.Errorf("clean up /%s: %v", root, err)
		}
		c.Close()
	})
	return c, endpoints, ns
}

// registerKyuubi registers a server as Kyuubi's EtcdDiscoveryClient does:
// the namespace key holding its own name, a lock key under /<ns>/lock/,
// then the server's key with the next sequence, value host:port, on a
// lease. It returns the lease, whose revoke deregisters.
// Reference: EtcdDiscoveryClient.createPersistentNode, startSessionWithRetry
// (kyuubi_discovery.md, section 2).
func registerKyuubi(t *testing.T, c *clientv3.Client, ns, hostPort, version string, seq int) clientv3.LeaseID {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, "/"+ns, "/"+ns); err != nil {
		t.Fatal(err)
	}
	lease, err := c.Grant(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	lock := fmt.Sprintf("/%s/lock/%x", ns, int64(lease.ID))
	if _, err := c.Put(ctx, lock, "", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("/%s/serverUri=%s;version=%s;sequence=%010d", ns, hostPort, version, seq)
	if _, err := c.Put(ctx, key, hostPort, clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(ctx, lock); err != nil {
		t.Fatal(err)
	}
	return lease.ID
}

func newTestEtcdWatcher(t *testing.T, endpoints []string, ns string, skipped *atomic.Int64) (*EtcdWatcher, <-chan struct{}) {
	t.Helper()
	changes := make(chan struct{}, 1)
	cfg := DefaultEtcdWatcherConfig()
	cfg.Endpoints, cfg.Namespace = endpoints, ns
	cfg.OnChange = func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	cfg.Logger = testLogger(t)
	if skipped != nil {
		cfg.Logger = slog.New(countingHandler{cfg.Logger.Handler(), "skipping", skipped})
	}
	w, err := NewEtcdWatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start(t, w.Run)
	select {
	case <-w.Synced():
	case <-time.After(zkWait):
		t.Fatalf("etcd watcher not synced within %v", zkWait)
	}
	return w, changes
}

func waitEtcdServers(t *testing.T, w *EtcdWatcher, changes <-chan struct{}, want ...string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(zkWait)
	for !slices.Equal(w.Servers(), want) {
		select {
		case <-changes:
		case <-deadline:
			t.Fatalf("etcd watcher servers %q, want %q, not within %v", w.Servers(), want, zkWait)
		}
	}
	return time.Since(start)
}

// Kyuubi servers registered in etcd are followed as they come and go; the
// lock keys, the namespace key, engine spaces beside the namespace and
// keys that are not registrations are not servers.
func TestEtcdWatcherFollowsKyuubi(t *testing.T) {
	c, endpoints, ns := etcdClient(t)
	before := registerKyuubi(t, c, ns, "127.0.0.1:10009", "1.9.0", 0)
	var skipped atomic.Int64
	w, changes := newTestEtcdWatcher(t, endpoints, ns, &skipped)
	waitEtcdServers(t, w, changes, "127.0.0.1:10009")
	reg, ok := w.Registration("127.0.0.1:10009")
	if !ok || reg.Name.Version != "1.9.0" || reg.Name.Sequence != "0000000000" || string(reg.Data) != "127.0.0.1:10009" {
		t.Fatalf("registration %+v %q (%v)", reg.Name, reg.Data, ok)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for key, value := range map[string]string{
		"/" + ns + "_1.9.0_USER_SPARK_SQL/alice/default/serverUri=10.1.1.1:40000;version=1.9.0;refId=r1;sequence=0000000000": "10.1.1.1:40000",
		"/" + ns + "/lock/694d8f1d2a3b":  "",
		"/" + ns + "/not a registration": "x",
	} {
		if _, err := c.Put(ctx, key, value); err != nil {
			t.Fatal(err)
		}
	}
	second := registerKyuubi(t, c, ns, "localhost:10010", "1.10.0", 0)
	d := waitEtcdServers(t, w, changes, "127.0.0.1:10009", "localhost:10010")
	t.Logf("a Kyuubi registration appeared in the etcd watcher after %v", d)
	if n := skipped.Load(); n != 1 {
		t.Errorf("the key that is not a registration was logged %d times, want 1", n)
	}

	start := time.Now()
	if _, err := c.Revoke(ctx, before); err != nil {
		t.Fatal(err)
	}
	waitEtcdServers(t, w, changes, "localhost:10010")
	t.Logf("a Kyuubi server that revoked its lease was dropped %v after the revoke", time.Since(start))

	// A restarted server registers again with the next sequence; the
	// newest key counts.
	third := registerKyuubi(t, c, ns, "localhost:10010", "1.10.1", 1)
	deadline := time.After(zkWait)
	for reg, _ := w.Registration("localhost:10010"); reg.Name.Version != "1.10.1"; reg, _ = w.Registration("localhost:10010") {
		select {
		case <-deadline:
			t.Fatalf("newest registration %+v, want version 1.10.1", reg.Name)
		case <-time.After(10 * time.Millisecond): // the set did not change: poll
		}
	}
	for _, l := range []clientv3.LeaseID{second, third} {
		if _, err := c.Revoke(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	waitEtcdServers(t, w, changes)
}

func TestEtcdWatcherConfigValidate(t *testing.T) {
	ok := DefaultEtcdWatcherConfig()
	ok.Endpoints = []string{"127.0.0.1:2379"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*EtcdWatcherConfig){
		"no endpoint":   func(c *EtcdWatcherConfig) { c.Endpoints = nil },
		"bad endpoint":  func(c *EtcdWatcherConfig) { c.Endpoints = []string{"a/b"} },
		"no namespace":  func(c *EtcdWatcherConfig) { c.Namespace = "/" },
		"short timeout": func(c *EtcdWatcherConfig) { c.DialTimeout = time.Millisecond },
	} {
		c := ok
		edit(&c)
		if c.Validate() == nil {
			t.Errorf("%s: Validate passed", name)
		}
	}
}
