package discovery

import (
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// kyuubiConfigs is what a Kyuubi server with
// kyuubi.ha.zookeeper.publish.configs=true writes as its znode's data: the
// keys the JDBC drivers read, and some they do not know.
// Reference: kyuubi_discovery.md, sections 3 and 4 (DiscoveryClient).
func kyuubiConfigs(host, port string) []byte {
	return []byte("hive.server2.thrift.bind.host=" + host + ";hive.server2.thrift.port=" + port +
		";hive.server2.transport.mode=binary;hive.server2.authentication=NONE;kyuubi.engine.id=app-1")
}

// Kyuubi servers register under /kyuubi in HiveServer2's znode format,
// their data "host:port" (the default) or key=value configs; the Watcher
// follows them as it follows HiveServer2, and the engine spaces Kyuubi
// keeps beside the namespace (/kyuubi_<version>_<share level>_<engine>/…)
// are not servers.
func TestWatcherFollowsKyuubiZooKeeper(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	ns := root + "/kyuubi"
	w, changes := newTestWatcher(t, servers, ns, nil, testLogger(t))

	registerHS2(t, servers, ns, "127.0.0.1:10009", "1.9.0", []byte("127.0.0.1:10009"))
	k2 := registerHS2(t, servers, ns, "localhost:10019", "1.10.0", kyuubiConfigs("localhost", "10019"))
	registerHS2(t, servers, root+"/kyuubi_1.9.0_USER_SPARK_SQL/alice/default", "10.1.1.1:40000", "1.9.0;refId=0b8f", []byte("10.1.1.1:40000"))
	waitServers(t, w, changes, "127.0.0.1:10009", "localhost:10019")
	reg, ok := w.Registration("localhost:10019")
	if !ok || reg.Name.Version != "1.10.0" || len(reg.Name.Sequence) != 10 {
		t.Fatalf("registration %+v (%v)", reg.Name, ok)
	}
	if host, port, err := Endpoint(reg.Data); err != nil || host != "localhost" || port != 10019 {
		t.Fatalf("a JDBC client reads %q as %s:%d (%v)", reg.Data, host, port, err)
	}
	k2.conn.Close()
	waitServers(t, w, changes, "127.0.0.1:10009")
}

// Kyuubi servers registered in etcd are published, balanced, under a
// ZooKeeper namespace for unmodified JDBC clients; the nodes another
// program made there (the namespace itself, a persistent child, another
// session's ephemeral child) are never written: not their data, not their
// existence, whatever the Publisher publishes or withdraws.
func TestPublisherKyuubiEtcdLeavesOthersNodes(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	c, endpoints, kns := etcdClient(t)
	a, b := "127.0.0.1:10009", "127.0.0.1:10010"
	registerKyuubi(t, c, kns, a, "1.9.0", 0)
	registerKyuubi(t, c, kns, b, "1.9.0", 0)
	ew, changes := newTestEtcdWatcher(t, endpoints, kns, nil)
	waitEtcdServers(t, ew, changes, a, b)

	pubNS := root + "/kyuubi-balanced"
	other := zkConnect(t, servers, 10*time.Second, nil)
	defer other.Close()
	for _, p := range []string{"/" + root, "/" + pubNS} {
		if _, err := other.Create(p, []byte("theirs"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	persistent := "/" + pubNS + "/serverUri=10.9.9.9:10009;version=1.8.0;sequence=0000000007"
	if _, err := other.Create(persistent, []byte("10.9.9.9:10009"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ephemeral := registerHS2(t, servers, pubNS, "10.9.9.8:10009", "1.8.0", []byte("10.9.9.8:10009")).path
	foreign := []string{"/" + pubNS, persistent, ephemeral}
	stats := map[string]*zk.Stat{}
	for _, p := range foreign {
		_, st, err := other.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		stats[p] = st
	}

	var el eligibleList
	el.set(a)
	p, stop := newTestPublisher(t, servers, pubNS, &el, func(c *PublisherConfig) { c.Registration, c.Count = ew.Registration, 2 })
	waitLandings(t, other, pubNS, a, "10.9.9.9:10009", "10.9.9.8:10009")
	el.set(b)
	p.Notify()
	waitLandings(t, other, pubNS, b, "10.9.9.9:10009", "10.9.9.8:10009")
	el.set()
	p.Notify()
	waitLandings(t, other, pubNS, "10.9.9.9:10009", "10.9.9.8:10009")
	el.set(a, b)
	p.Notify()
	waitLandings(t, other, pubNS, a, b, "10.9.9.9:10009", "10.9.9.8:10009")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	children, _, err := other.Children("/" + pubNS)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(children)
	if want := []string{ephemeral[len(pubNS)+2:], persistent[len(pubNS)+2:]}; !slices.Equal(children, want) {
		t.Errorf("after the publisher stopped: %q, want only the others' %q", children, want)
	}
	for _, p := range foreign {
		data, st, err := other.Get(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if was := stats[p]; st.Mzxid != was.Mzxid || st.Version != was.Version || st.Czxid != was.Czxid {
			t.Errorf("%s was written (%q): stat %+v, was %+v", p, data, st, was)
		}
	}
}
