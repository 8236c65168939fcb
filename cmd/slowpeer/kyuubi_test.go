package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/reports"
)

// The service follows Kyuubi servers registered in etcd as pick targets,
// keeps new connections away from a slow host among them, and publishes
// the best under a ZooKeeper namespace for unmodified JDBC clients.
func TestNamenodeKyuubiEtcd(t *testing.T) {
	endpoints := testenv.Etcd(t)
	zkAddr := testZooKeeper(t)
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var b [4]byte
	rand.Read(b[:])
	ns := "slowpeer-test-kyuubi-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t.Cleanup(func() { c.Delete(context.Background(), "/"+ns, clientv3.WithPrefix()) })
	// As Kyuubi's EtcdDiscoveryClient registers: a key on a lease, value host:port.
	register := func(hostPort string) clientv3.LeaseID {
		lease, err := c.Grant(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("/%s/serverUri=%s;version=1.9.0;sequence=0000000000", ns, hostPort)
		if _, err := c.Put(ctx, key, hostPort, clientv3.WithLease(lease.ID)); err != nil {
			t.Fatal(err)
		}
		return lease.ID
	}
	register("127.0.0.1:10009")
	second := register("127.0.0.2:10009")

	pub := ns + "-best"
	// Without the slow set's hysteresis: one report makes a host slow.
	addr, _ := startNamenode(t, "-D", "slowpeer.slow.enter.after=0", "-D", "slowpeer.slow.enter.reporters=1",
		"-kyuubi-etcd", "etcd://"+strings.Join(endpoints, ",")+"/"+ns,
		"-hs2-zookeeper", zkAddr, "-hs2-namespace", ns+"-hs2", "-hs2-publish-namespace", pub)
	servers := func() string {
		var list []struct{ Server string }
		resp, err := http.Get("http://" + addr + "/v1/hiveservers")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&list)
		var names []string
		for _, s := range list {
			names = append(names, s.Server)
		}
		return strings.Join(names, ",")
	}
	eventually(t, "both Kyuubi servers are known", func() bool { return servers() == "127.0.0.1:10009,127.0.0.2:10009" })

	zc, _, err := zk.Connect(strings.Split(zkAddr, ","), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	t.Cleanup(func() { zc.Delete("/"+pub, -1) })
	published := func() string {
		children, _, err := zc.Children("/" + pub)
		if err != nil {
			return err.Error()
		}
		var got []string
		for _, ch := range children {
			data, _, err := zc.Get("/" + pub + "/" + ch)
			if err != nil {
				return err.Error()
			}
			host, port, err := discovery.Endpoint(data)
			if err != nil {
				return err.Error()
			}
			got = append(got, host+":"+strconv.Itoa(port))
		}
		slices.Sort(got)
		return strings.Join(got, ",")
	}
	eventually(t, "127.0.0.1:10009 is published", func() bool { return published() == "127.0.0.1:10009" })

	// A DataNode on 127.0.0.1 is reported slow: its Kyuubi server is avoided.
	hb, _ := json.Marshal(reports.Heartbeat{Node: "127.0.0.3:9866",
		SlowPeers: []reports.SlowPeer{{Node: "127.0.0.1:9866", LatencyMs: 50, MedianMs: 2, MADMs: 1, UpperLimitMs: 6}}})
	resp, err := http.Post("http://"+addr+reports.HeartbeatPath, "application/json", bytes.NewReader(hb))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, "the server off the slow host is published", func() bool { return published() == "127.0.0.2:10009" })

	// Its lease revoked, the other server goes; the one on the slow host is
	// not published either.
	if _, err := c.Revoke(ctx, second); err != nil {
		t.Fatal(err)
	}
	eventually(t, "127.0.0.2:10009 is dropped", func() bool { return servers() == "127.0.0.1:10009" })
	eventually(t, "nothing is published", func() bool { return published() == "" })
}

func TestParseKyuubiEtcd(t *testing.T) {
	f := func(s string, want []string, wantNS, wantErr string) {
		t.Helper()
		cfg, err := parseKyuubiEtcd(s)
		if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Fatalf("parseKyuubiEtcd(%q) error %v, want %q", s, err, wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("parseKyuubiEtcd(%q): the error shows the password: %v", s, err)
		}
		if err == nil && (!slices.Equal(cfg.Endpoints, want) || cfg.Namespace != wantNS) {
			t.Fatalf("parseKyuubiEtcd(%q) = %q, %q; want %q, %q", s, cfg.Endpoints, cfg.Namespace, want, wantNS)
		}
	}
	f("etcd://e1:2379,e2:2379/kyuubi", []string{"e1:2379", "e2:2379"}, "kyuubi", "")
	f("etcd://e1:2379", []string{"e1:2379"}, "kyuubi", "")
	f("etcd://[::1]:2379/a/b/", []string{"[::1]:2379"}, "a/b/", "")
	f("zk://e1:2181/kyuubi", nil, "", "want etcd://")
	f("etcd://e1/kyuubi", nil, "", "not host:port")
	f("etcd://e1:2379,,e2:2379/k", nil, "", "empty etcd address")
	f("etcd://e1:2379/a/../b", nil, "", "namespace")
	f("etcd://kyuubi:s3cret@e1:2379/kyuubi", []string{"e1:2379"}, "kyuubi", "")
	f("etcd://kyuubi:s3cret@e1/kyuubi", nil, "", "not host:port")
	f("etcd://kyuubi@e1:2379/kyuubi", nil, "", "USER:PASSWORD")
	if cfg, err := parseKyuubiEtcd("etcd://ky%3Au:p%40ss@e1:2379/k"); err != nil || cfg.Username != "ky:u" || cfg.Password != "p@ss" {
		t.Fatalf("credentials: %+v, %v", cfg, err)
	}
}

func FuzzParseKyuubiEtcd(f *testing.F) {
	f.Add("etcd://e1:2379,e2:2379/kyuubi")
	f.Add("etcd://[::1]:2379/")
	f.Add("etcd://u:p@e1:2379/k")
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := parseKyuubiEtcd(s)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parseKyuubiEtcd(%q) accepted what the watcher refuses: %v", s, err)
		}
	})
}
