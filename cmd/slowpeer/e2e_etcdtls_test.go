//go:build e2e

package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/internal/testenv"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// An etcd that speaks TLS only and asks for client certificates, set with
// the slowpeer.registry.etcd.ssl.* keys: a replica registers there and
// follows the Kyuubi servers there, and "hiveserver pick" and "report"
// find it; the keys set half-way are refused with exit 2.
func TestRegistryEtcdTLS(t *testing.T) {
	files := testenv.NewEtcdTLS(t)
	e := testenv.StartEtcd(t, files)
	c := e.Client()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lease, err := c.Grant(ctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(ctx, "/kyuubi/serverUri=127.0.0.1:10009;version=1.9.0;sequence=0000000000", "127.0.0.1:10009",
		clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	keys := []string{"-D", discovery.EtcdSSLEnabledKey + "=true", "-D", discovery.EtcdSSLCAKey + "=" + files.CAFile,
		"-D", discovery.EtcdSSLClientCert + "=" + files.ClientCertFile, "-D", discovery.EtcdSSLClientKey + "=" + files.ClientKeyFile}
	registry := "etcd://" + e.Addr + "/slowpeer-tls"
	addr, _ := startNamenode(t, append([]string{"-registry", registry, "-kyuubi-etcd", "etcd://" + e.Addr + "/kyuubi",
		"-D", "slowpeer.registry.lease.timeout=2s"}, keys...)...)
	eventually(t, "the replica leads", func() bool {
		cl, err := clusterOf(addr)
		return err == nil && cl.Leader != nil && *cl.Leader == addr
	})
	cmd := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, args, strings.NewReader(""), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	eventually(t, "hiveserver pick through the registry picks the Kyuubi server", func() bool {
		code, out := cmd(append([]string{"hiveserver", "pick", "-namenode", registry}, keys...)...)
		return code == 0 && out == "127.0.0.1:10009\n"
	})
	if code, out := cmd(append([]string{"report", "-json", "-namenode", registry}, keys...)...); code != 0 || out != "[]\n" {
		t.Errorf("report through the TLS registry: exit %d, %q", code, out)
	}
	// Without the keys the registry does not answer a plain client.
	short, scancel := context.WithTimeout(ctx, 3*time.Second)
	defer scancel()
	if code := run(short, []string{"report", "-namenode", registry}, strings.NewReader(""), io.Discard, io.Discard); code == 0 {
		t.Error("report read the TLS registry without TLS")
	}
	for _, bad := range [][]string{
		{"-D", discovery.EtcdSSLCAKey + "=" + files.CAFile},
		{"-D", discovery.EtcdSSLEnabledKey + "=true", "-D", discovery.EtcdSSLClientCert + "=" + files.ClientCertFile},
		{"-D", discovery.EtcdSSLEnabledKey + "=yes"},
		{"-D", discovery.EtcdSSLEnabledKey + "=true", "-D", discovery.EtcdSSLCAKey + "=/nonexistent"},
	} {
		code, out := cmd(append([]string{"report", "-namenode", registry}, bad...)...)
		if code != 2 || !strings.Contains(out, "slowpeer.registry.etcd.ssl") {
			t.Errorf("report %v: exit %d, %q; want 2 naming the key", bad, code, out)
		}
		code, out = cmd(append([]string{"namenode", "-listen", "127.0.0.1:0", "-registry", registry}, bad...)...)
		if code != 2 || !strings.Contains(out, "slowpeer.registry.etcd.ssl") {
			t.Errorf("namenode %v: exit %d, %q; want 2 naming the key", bad, code, out)
		}
	}
}
