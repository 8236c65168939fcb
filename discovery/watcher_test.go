package discovery

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// newTestWatcher starts a Watcher on the test ZooKeeper; changes receives
// a signal after every change of its set.
func newTestWatcher(t *testing.T, servers []string, namespace string, dial zk.Dialer, log *slog.Logger) (*Watcher, <-chan struct{}) {
	t.Helper()
	changes := make(chan struct{}, 1)
	cfg := DefaultWatcherConfig()
	cfg.Servers = servers
	cfg.Namespace = namespace
	cfg.SessionTimeout = testSessionTimeout
	cfg.OnChange = func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	cfg.Logger = log
	cfg.dial = dial
	w, err := NewWatcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start(t, w.Run)
	select {
	case <-w.Synced():
	case <-time.After(zkWait):
		t.Fatalf("watcher not synced within %v", zkWait)
	}
	return w, changes
}

// waitServers waits, woken by the Watcher's OnChange, until its servers
// are want, and returns how long that took.
func waitServers(t *testing.T, w *Watcher, changes <-chan struct{}, want ...string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(zkWait)
	for !slices.Equal(w.Servers(), want) {
		select {
		case <-changes:
		case <-deadline:
			t.Fatalf("watcher servers %q, want %q, not within %v", w.Servers(), want, zkWait)
		}
	}
	return time.Since(start)
}

// countingHandler counts log records whose message contains a word.
type countingHandler struct {
	slog.Handler
	word string
	n    *atomic.Int64
}

func (h countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.word) {
		h.n.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return countingHandler{h.Handler.WithAttrs(as), h.word, h.n}
}

// A HiveServer2 registration appears; a closed session drops it at once,
// a dead one after its session timeout; a znode that is not a
// registration is skipped and logged once.
// Reference: HiveServer2.start, ZooKeeperHiveHelper.addServerInstanceToZooKeeper.
func TestWatcherFollowsRegistrations(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	ns := root + "/hiveserver2"
	var skipped atomic.Int64
	log := slog.New(countingHandler{testLogger(t).Handler(), "skipping", &skipped})
	w, changes := newTestWatcher(t, servers, ns, nil, log)
	if got := w.Servers(); len(got) != 0 {
		t.Fatalf("no namespace yet, servers %q", got)
	}

	hs1 := registerHS2(t, servers, ns, "127.0.0.1:10000", "3.1.3", hs2Configs("127.0.0.1", 10000))
	d := waitServers(t, w, changes, "127.0.0.1:10000")
	t.Logf("a registration appeared in the watcher after %v", d)
	reg, ok := w.Registration("127.0.0.1:10000")
	if !ok || reg.Name.Version != "3.1.3" || string(reg.Data) != string(hs2Configs("127.0.0.1", 10000)) ||
		!strings.HasPrefix(hs1.path, "/"+ns+"/"+reg.Name.Prefix()) {
		t.Errorf("registration %+v %q (%v), want that of %s", reg.Name, reg.Data, ok, hs1.path)
	}

	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	if _, err := obs.Create("/"+ns+"/not a registration", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	hs2 := registerHS2(t, servers, ns, "localhost:10001", "4.0.1", hs2Configs("localhost", 10001))
	waitServers(t, w, changes, "127.0.0.1:10000", "localhost:10001")
	if n := skipped.Load(); n != 1 {
		t.Errorf("the znode that is not a registration was logged %d times, want 1", n)
	}

	start := time.Now()
	hs1.conn.Close()
	waitServers(t, w, changes, "localhost:10001")
	t.Logf("a HiveServer2 that closed its session was dropped %v after Close", time.Since(start))

	start = time.Now()
	hs2.gate.cut()
	waitServers(t, w, changes)
	t.Logf("a HiveServer2 cut off the network was dropped %v after the cut (session timeout %v)", time.Since(start), testSessionTimeout)
	if _, ok := w.Registration("localhost:10001"); ok {
		t.Error("a dropped server still has a registration")
	}
}

// A HiveServer2 restarted before its old session ended has two znodes:
// the newest counts, and the older one keeps it known when the newest
// goes.
func TestWatcherNewestRegistration(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	ns := root + "/hiveserver2"
	w, changes := newTestWatcher(t, servers, ns, nil, testLogger(t))
	registerHS2(t, servers, ns, "127.0.0.1:10000", "3.1.2", []byte("old"))
	waitServers(t, w, changes, "127.0.0.1:10000")
	newer := registerHS2(t, servers, ns, "127.0.0.1:10000", "3.1.3", []byte("new"))
	// The set does not change; a third server tells when the Watcher has
	// read past the newer znode.
	registerHS2(t, servers, ns, "127.0.0.1:10002", "3.1.3", nil)
	waitServers(t, w, changes, "127.0.0.1:10000", "127.0.0.1:10002")
	if reg, _ := w.Registration("127.0.0.1:10000"); string(reg.Data) != "new" {
		t.Errorf("registration data %q, want the newest's", reg.Data)
	}
	newer.conn.Close()
	registerHS2(t, servers, ns, "127.0.0.1:10003", "3.1.3", nil)
	waitServers(t, w, changes, "127.0.0.1:10000", "127.0.0.1:10002", "127.0.0.1:10003")
	if reg, _ := w.Registration("127.0.0.1:10000"); string(reg.Data) != "old" {
		t.Errorf("registration data %q after the newest went, want the older's", reg.Data)
	}
}

// After its session expired the Watcher reads the namespace again under a
// new one; while cut off it keeps what it knew.
func TestWatcherSessionExpiry(t *testing.T) {
	servers := zkServers(t)
	root := zkRoot(t, servers)
	ns := root + "/hiveserver2"
	g := &gate{}
	w, changes := newTestWatcher(t, servers, ns, g.dial, testLogger(t))
	hs1 := registerHS2(t, servers, ns, "127.0.0.1:10000", "3.1.3", hs2Configs("127.0.0.1", 10000))
	waitServers(t, w, changes, "127.0.0.1:10000")

	// An ephemeral znode of the Watcher's session shows when the session
	// expires.
	marker, err := w.s.conn.Create("/"+root+"/watcher-session", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	oldSession := w.s.conn.SessionID()
	obs := zkConnect(t, servers, 10*time.Second, nil)
	defer obs.Close()
	g.cut()
	zkWaitGone(t, obs, marker)

	hs1.conn.Close()
	registerHS2(t, servers, ns, "127.0.0.1:10003", "3.1.3", hs2Configs("127.0.0.1", 10003))
	if got := w.Servers(); !slices.Equal(got, []string{"127.0.0.1:10000"}) {
		t.Errorf("cut off, the watcher has %q, want what it last read", got)
	}
	start := time.Now()
	g.heal()
	waitServers(t, w, changes, "127.0.0.1:10003")
	t.Logf("after its session expired the watcher caught up %v after the network came back", time.Since(start))
	if s := w.s.conn.SessionID(); s == oldSession || s == 0 {
		t.Errorf("session %#x after expiry, was %#x", s, oldSession)
	}
}

func TestWatcherConfigValidate(t *testing.T) {
	f := func(change func(*WatcherConfig), wantErr bool) {
		t.Helper()
		cfg := DefaultWatcherConfig()
		cfg.Servers = []string{"127.0.0.1:2181", "zk2"}
		change(&cfg)
		if err := cfg.Validate(); (err != nil) != wantErr {
			t.Errorf("Validate() = %v, want error %v", err, wantErr)
		}
	}
	f(func(*WatcherConfig) {}, false)
	f(func(c *WatcherConfig) { c.Servers = nil }, true)
	f(func(c *WatcherConfig) { c.Servers = []string{""} }, true)
	f(func(c *WatcherConfig) { c.Namespace = "" }, true)
	f(func(c *WatcherConfig) { c.SessionTimeout = time.Millisecond }, true)
}

// A Watcher is a hiveserver.Source (Servers() []string), which this
// package may not import.
var _ interface{ Servers() []string } = (*Watcher)(nil)
