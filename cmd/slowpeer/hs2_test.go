package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// eventually polls cond every 20 ms until it holds, for at most 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testZooKeeper(t *testing.T) string {
	t.Helper()
	return testenv.Env(t, testenv.ZooKeeperEnv)
}

// registerHS2 registers a HiveServer2 at host:port under /ns as
// HiveServer2 does (an ephemeral sequential znode named
// serverUri=host:port;version=V;sequence=N holding its configs) on a
// session of its own, which the returned func closes.
func registerHS2(t *testing.T, zkAddr, ns, host string, port int) (unregister func()) {
	t.Helper()
	c, _, err := zk.Connect(strings.Split(zkAddr, ","), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	acl := zk.WorldACL(zk.PermAll)
	if _, err := c.Create("/"+ns, nil, 0, acl); err != nil && err != zk.ErrNodeExists {
		t.Fatal(err)
	}
	data := fmt.Sprintf("hive.server2.authentication=NONE;hive.server2.transport.mode=binary;"+
		"hive.server2.thrift.sasl.qop=auth;hive.server2.thrift.bind.host=%s;hive.server2.thrift.port=%d", host, port)
	name := fmt.Sprintf("/%s/serverUri=%s:%d;version=3.1.3;sequence=", ns, host, port)
	if _, err := c.Create(name, []byte(data), zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
		t.Fatal(err)
	}
	closed := false
	unregister = func() {
		if !closed {
			closed = true
			c.Close()
		}
	}
	t.Cleanup(unregister)
	return unregister
}

// TestNamenodeHS2ZooKeeper runs the service against a real ZooKeeper: it
// follows HiveServer2's registrations and publishes the least-loaded one
// where a JDBC client with zooKeeperNamespace= looks.
func TestNamenodeHS2ZooKeeper(t *testing.T) {
	zkAddr := testZooKeeper(t)
	var b [4]byte
	rand.Read(b[:])
	ns := "slowpeer-test-hs2-" + hex.EncodeToString(b[:])
	pub := ns + "-best"
	unregisterA := registerHS2(t, zkAddr, ns, "127.0.0.1", 10000)
	unregisterB := registerHS2(t, zkAddr, ns, "127.0.0.2", 10000)
	addr, _ := startNamenode(t, "-hs2-zookeeper", zkAddr, "-hs2-namespace", ns, "-hs2-publish-namespace", pub)

	servers := func() string {
		resp, err := http.Get("http://" + addr + "/v1/hiveservers")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list []struct{ Server string }
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range list {
			names = append(names, s.Server)
		}
		return strings.Join(names, ",")
	}
	eventually(t, "both registered HiveServers are known", func() bool { return servers() == "127.0.0.1:10000,127.0.0.2:10000" })

	// What a JDBC driver finds under zooKeeperNamespace=pub.
	c, _, err := zk.Connect(strings.Split(zkAddr, ","), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	published := func() string {
		children, _, err := c.Children("/" + pub)
		if err != nil || len(children) != 1 {
			return fmt.Sprintf("%d children, %v", len(children), err)
		}
		data, _, err := c.Get("/" + pub + "/" + children[0])
		if err != nil {
			return err.Error()
		}
		host, port, err := discovery.Endpoint(data)
		if err != nil {
			return err.Error()
		}
		return host + ":" + strconv.Itoa(port)
	}
	// Both idle: the first by name.
	eventually(t, "127.0.0.1:10000 is published", func() bool { return published() == "127.0.0.1:10000" })

	// A statement starts on .1: .2 is now the least loaded.
	form := url.Values{"server": {"127.0.0.1:10000"}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {"q1"},
		"queryStr": {"select%201"}, "jobName": {"j"}, "timestamp": {strconv.FormatInt(time.Now().UnixMilli(), 10)}}
	resp, err := http.PostForm("http://"+addr+"/rest/hiveserver/send", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("hook event: %d", resp.StatusCode)
	}
	eventually(t, "127.0.0.2:10000 is published", func() bool { return published() == "127.0.0.2:10000" })

	// .2 goes away: it is dropped and .1, busy but alone, is published.
	unregisterB()
	eventually(t, "127.0.0.2:10000 is dropped", func() bool { return servers() == "127.0.0.1:10000" })
	eventually(t, "127.0.0.1:10000 is published again", func() bool { return published() == "127.0.0.1:10000" })
	unregisterA()
}

func TestHS2FlagsCheck(t *testing.T) {
	f := func(fl hs2Flags, want string) {
		t.Helper()
		if fl.namespace == "" {
			fl.namespace = discovery.DefaultNamespace
		}
		if fl.count == 0 {
			fl.count = 1
		}
		err := fl.check()
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Fatalf("check(%+v) = %v, want %q", fl, err, want)
		}
	}
	f(hs2Flags{}, "")
	f(hs2Flags{zookeeper: "zk1:2181,zk2:2181"}, "")
	f(hs2Flags{zookeeper: "zk1:2181", publishNS: "best"}, "")
	f(hs2Flags{publishNS: "best"}, "needs -hs2-zookeeper")
	f(hs2Flags{zookeeper: "zk1:2181", publishNS: "/hiveserver2/"}, "where HiveServer2 registers itself")
	f(hs2Flags{zookeeper: "zk1:2181", publishNS: "best", count: -1}, "at least 1")
	f(hs2Flags{zookeeper: "zk1:2181,,zk2:2181"}, "-hs2-zookeeper")
}
