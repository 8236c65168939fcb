package discovery

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// recordingZK logs the writes a Publisher makes through the real
// ZooKeeper client.
type recordingZK struct {
	zkConn
	mu     sync.Mutex
	writes []string
}

func (r *recordingZK) Create(p string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	got, err := r.zkConn.Create(p, data, flags, acl)
	if err == nil {
		r.add("create " + got)
	}
	return got, err
}

func (r *recordingZK) Delete(p string, version int32) error {
	err := r.zkConn.Delete(p, version)
	if err == nil {
		r.add("delete " + p)
	}
	return err
}

func (r *recordingZK) add(w string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, w)
}

func (r *recordingZK) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.writes
	r.writes = nil
	return w
}

// newTestPublisher runs a Publisher on the test ZooKeeper; stop ends its
// Run and returns its error (the test's cleanup checks it otherwise).
func newTestPublisher(t *testing.T, servers []string, namespace string, el *eligibleList, change func(*PublisherConfig)) (p *Publisher, stop func() error) {
	t.Helper()
	cfg := DefaultPublisherConfig()
	cfg.Servers = servers
	cfg.Namespace = namespace
	cfg.SessionTimeout = testSessionTimeout
	cfg.Eligible = el.get
	cfg.Logger = testLogger(t)
	if change != nil {
		change(&cfg)
	}
	p, err := NewPublisher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop = start(t, p.Run)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop publisher: %v", err)
		}
	})
	return p, stop
}

// waitLandings waits until a JDBC client, whichever znode it picks, lands
// on exactly want (one entry per znode, sorted), and returns the
// children.
func waitLandings(t *testing.T, obs *zk.Conn, namespace string, want ...string) []string {
	t.Helper()
	slices.Sort(want)
	var children []string
	zkWaitChildren(t, obs, "/"+namespace, "clients land on "+strings.Join(want, ","), func([]string) bool {
		var got []string
		got, children = jdbcLandings(t, obs, namespace)
		return slices.Equal(got, want)
	})
	return children
}

// An unmodified JDBC client (the emulated driver) lands on the published
// server, with the transport settings its HiveServer2 registered, and on
// the new one after the pick changes; the switch creates before it
// deletes. Reference: ZooKeeperHiveClientHelper.configureConnParams.
func TestPublisherJDBC(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	hsNS, pubNS := root+"/hiveserver2", root+"/slowpeer"
	a, b := "127.0.0.1:10000", "localhost:10001"
	registerHS2(t, servers, hsNS, a, "3.1.3", hs2Configs("127.0.0.1", 10000))
	registerHS2(t, servers, hsNS, b, "4.0.1", []byte("hive.server2.transport.mode=http;hive.server2.thrift.http.port=10001;"+
		"hive.server2.thrift.http.path=cliservice;hive.server2.thrift.bind.host=localhost;hive.server2.authentication=NONE"))
	w, changes := newTestWatcher(t, servers, hsNS, nil, testLogger(t))
	waitServers(t, w, changes, a, b)

	var el eligibleList
	el.set(a, b)
	var rec *recordingZK
	p, _ := newTestPublisher(t, servers, pubNS, &el, func(c *PublisherConfig) {
		c.Registration = w.Registration
		c.wrap = func(z zkConn) zkConn { rec = &recordingZK{zkConn: z}; return rec }
	})
	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	start := time.Now()
	children := waitLandings(t, obs, pubNS, a)
	t.Logf("first publish seen by a client after %v", time.Since(start))
	var jp jdbcParams
	if err := jdbcConfigure(obs, pubNS, &jp, rand.IntN); err != nil || jp.endpoint() != a || jp.transportMode != "binary" {
		t.Errorf("a client lands on %s, transport %q (%v); want %s, binary", jp.endpoint(), jp.transportMode, err, a)
	}
	old := "/" + pubNS + "/" + children[0]
	rec.take()

	_, before, err := obs.Exists("/" + pubNS)
	if err != nil {
		t.Fatal(err)
	}
	el.set(b, a)
	start = time.Now()
	p.Notify()
	children = waitLandings(t, obs, pubNS, b)
	t.Logf("a switch seen by a client %v after Notify", time.Since(start))
	jp = jdbcParams{}
	if err := jdbcConfigure(obs, pubNS, &jp, rand.IntN); err != nil || jp.endpoint() != b || jp.transportMode != "http" {
		t.Errorf("a client lands on %s, transport %q (%v); want %s, http", jp.endpoint(), jp.transportMode, err, b)
	}
	created := "/" + pubNS + "/" + children[0]
	if got, want := rec.take(), []string{"create " + created, "delete " + old}; !slices.Equal(got, want) {
		t.Errorf("switch writes %q, want %q", got, want)
	}
	// ZooKeeper's own record of the order: the new znode was created
	// before the namespace's last child change (the delete), and there
	// were exactly two changes.
	_, after, err := obs.Exists("/" + pubNS)
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := obs.Get(created)
	if err != nil {
		t.Fatal(err)
	}
	if after.Cversion != before.Cversion+2 || st.Czxid >= after.Pzxid {
		t.Errorf("namespace child version %d → %d, created at zxid %#x, last child change %#x: want create, then delete",
			before.Cversion, after.Cversion, st.Czxid, after.Pzxid)
	}
	if got := p.Published(); !slices.Equal(got, []string{b}) {
		t.Errorf("Published() = %q, want %q", got, b)
	}
}

// With two servers published, a client whose first server fails retries
// on the other and lands on its exact address, port included.
// Reference: Utils.updateConnParamsFromZooKeeper.
func TestPublisherJDBCRetry(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	hsNS, pubNS := root+"/hiveserver2", root+"/slowpeer"
	a, b := "127.0.0.1:10000", "localhost:10001"
	registerHS2(t, servers, hsNS, b, "4.0.1", []byte("hive.server2.transport.mode=http;hive.server2.thrift.http.port=10001;"+
		"hive.server2.thrift.bind.host=localhost"))
	w, changes := newTestWatcher(t, servers, hsNS, nil, testLogger(t))
	waitServers(t, w, changes, b)
	var el eligibleList
	el.set(a, b)
	newTestPublisher(t, servers, pubNS, &el, func(c *PublisherConfig) {
		c.Count = 2
		c.Registration = w.Registration
	})
	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	waitLandings(t, obs, pubNS, a, b)
	for first := range 2 {
		var jp jdbcParams
		pick := func(int) int { return first }
		if err := jdbcConfigure(obs, pubNS, &jp, pick); err != nil {
			t.Fatal(err)
		}
		landed := jp.endpoint()
		if err := jdbcRetry(obs, pubNS, &jp, func(int) int { return 0 }); err != nil {
			t.Fatal(err)
		}
		want := a
		if landed == a {
			want = b
		}
		if jp.endpoint() != want {
			t.Errorf("after %s failed the client retried on %s, want %s", landed, jp.endpoint(), want)
		}
		if err := jdbcRetry(obs, pubNS, &jp, rand.IntN); err == nil {
			t.Errorf("a third attempt found a server: %s", jp.endpoint())
		}
	}
}

// After its session expired (its znodes went with it) the Publisher
// creates them again under a new session.
func TestPublisherSessionExpiry(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	pubNS := root + "/slowpeer"
	a := "127.0.0.1:10000"
	var el eligibleList
	el.set(a)
	g := &gate{}
	newTestPublisher(t, servers, pubNS, &el, func(c *PublisherConfig) { c.dial = g.dial })
	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	children := waitLandings(t, obs, pubNS, a)
	old := "/" + pubNS + "/" + children[0]
	_, st, err := obs.Get(old)
	if err != nil {
		t.Fatal(err)
	}
	oldOwner := st.EphemeralOwner

	start := time.Now()
	g.cut()
	zkWaitGone(t, obs, old)
	t.Logf("cut off, the publisher's znode went %v after the cut (session timeout %v)", time.Since(start), testSessionTimeout)

	start = time.Now()
	g.heal()
	children = waitLandings(t, obs, pubNS, a)
	t.Logf("the publisher published again %v after the network came back", time.Since(start))
	_, st, err = obs.Get("/" + pubNS + "/" + children[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.EphemeralOwner == oldOwner || st.EphemeralOwner == 0 {
		t.Errorf("znode owner %#x, want a new session (was %#x)", st.EphemeralOwner, oldOwner)
	}
}

// Replicas publishing into one namespace keep their own znodes; one that
// stops deletes only its own; with all stopped the namespace is empty.
func TestPublisherReplicas(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	pubNS := root + "/slowpeer"
	a, b := "127.0.0.1:10000", "127.0.0.1:10001"
	var el1, el2 eligibleList
	el1.set(a)
	el2.set(b)
	_, stop1 := newTestPublisher(t, servers, pubNS, &el1, nil)
	p2, stop2 := newTestPublisher(t, servers, pubNS, &el2, nil)
	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	waitLandings(t, obs, pubNS, a, b)

	el2.set(a)
	p2.Notify()
	waitLandings(t, obs, pubNS, a, a)

	if err := stop1(); err != nil {
		t.Fatal(err)
	}
	if got, _ := jdbcLandings(t, obs, pubNS); !slices.Equal(got, []string{a}) {
		t.Errorf("after one replica closed clients land on %q, want the other's %s", got, a)
	}
	if err := stop2(); err != nil {
		t.Fatal(err)
	}
	children, _, err := obs.Children("/" + pubNS)
	if err != nil || len(children) != 0 {
		t.Errorf("after every publisher closed: %q, %v", children, err)
	}
}
