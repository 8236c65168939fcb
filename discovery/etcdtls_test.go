package discovery

import (
	"context"
	"crypto/tls"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// An etcd that speaks TLS only and asks for client certificates: a
// replica with the TLS config registers and leads, a reader and the
// Kyuubi watcher with it read, and a client without a certificate, or
// without TLS, is refused.
func TestEtcdTLS(t *testing.T) {
	files := testenv.NewEtcdTLS(t)
	e := testenv.StartEtcd(t, files)
	u := RegistryURL{Kind: EtcdKind, Servers: []string{e.Addr}, Root: "/slowpeer", TLS: files.Client}
	var running atomic.Int32
	var overlap atomic.Bool
	r := startReplica(t, u, 9871, &running, &overlap)
	testenv.WaitFor(t, "the replica to lead over TLS", 20*time.Second, r.Leading)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reader, err := OpenRegistry(u, 0, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if ms, err := reader.Members(ctx); err != nil || len(ms) != 1 || ms[0].Server != "127.0.0.1:9871" {
		t.Errorf("members read over TLS: %+v, %v", ms, err)
	}

	c := e.Client()
	defer c.Close()
	registerKyuubi(t, c, "kyuubi", "127.0.0.1:10009", "1.9.0", 0)
	cfg := DefaultEtcdWatcherConfig()
	cfg.Endpoints, cfg.TLS, cfg.Logger = []string{e.Addr}, files.Client, testLogger(t)
	changes := make(chan struct{}, 16)
	cfg.OnChange = func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	w, err := NewEtcdWatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start(t, w.Run)
	waitEtcdServers(t, w, changes, "127.0.0.1:10009")

	refused := func(name string, cfg *tls.Config) {
		t.Helper()
		plain := u
		plain.TLS = cfg
		g, err := OpenRegistry(plain, 0, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
		defer scancel()
		if ms, err := g.Members(sctx); err == nil {
			t.Errorf("%s: read %+v", name, ms)
		}
	}
	refused("without TLS", nil)
	noCert := files.Client.Clone()
	noCert.Certificates = nil
	refused("without a client certificate", noCert)
	wrongCA := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: files.Client.Certificates}
	refused("with the system's roots", wrongCA)
}
