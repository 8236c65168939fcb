package discovery

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// An etcd with authentication on: a replica of etcd://USER:PASSWORD@
// registers and leads, a reader with the credentials finds it, the
// Kyuubi watcher reads as its user, and a client without them is refused.
func TestEtcdUser(t *testing.T) {
	e := testenv.StartEtcd(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := e.Client()
	defer c.Close()
	for _, step := range []func() error{
		func() error { _, err := c.RoleAdd(ctx, "root"); return err },
		func() error { _, err := c.UserAdd(ctx, "root", "s3cret@/x"); return err },
		func() error { _, err := c.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := c.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatalf("enable etcd authentication: %v", err)
		}
	}
	anon, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if _, err := anon.Get(ctx, "/slowpeer", clientv3.WithPrefix()); err == nil {
		t.Fatal("etcd answers a client without credentials: authentication is off")
	}

	u, err := ParseRegistryURL("etcd://root:s3cret%40%2Fx@" + e.Addr + "/slowpeer")
	if err != nil {
		t.Fatal(err)
	}
	var running atomic.Int32
	var overlap atomic.Bool
	r := startReplica(t, u, 9871, &running, &overlap)
	testenv.WaitFor(t, "the replica to lead", 20*time.Second, r.Leading)

	reader, err := OpenRegistry(u, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if ms, err := reader.Members(ctx); err != nil || len(ms) != 1 || ms[0].Server != "127.0.0.1:9871" {
		t.Errorf("members read with credentials: %+v, %v", ms, err)
	}
	noAuth := u
	noAuth.User, noAuth.Password = "", ""
	bare, err := OpenRegistry(noAuth, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if _, err := bare.Members(ctx); err == nil || !strings.Contains(err.Error(), "user name") {
		t.Errorf("members read without credentials: %v", err)
	}

	// Kyuubi's watcher, as the same user.
	user, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		Username: u.User, Password: u.Password})
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	registerKyuubi(t, user, "kyuubi", "127.0.0.1:10009", "1.9.0", 0)
	cfg := DefaultEtcdWatcherConfig()
	cfg.Endpoints, cfg.Namespace, cfg.Username, cfg.Password = []string{e.Addr}, "kyuubi", u.User, u.Password
	changes := make(chan struct{}, 1)
	cfg.OnChange = func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	cfg.Logger = testLogger(t)
	w, err := NewEtcdWatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start(t, w.Run)
	waitEtcdServers(t, w, changes, "127.0.0.1:10009")
}
