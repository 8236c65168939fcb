package discovery

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// eligibleList is an Eligible function the test changes.
type eligibleList struct{ p atomic.Pointer[[]string] }

func (e *eligibleList) set(servers ...string) { e.p.Store(&servers) }
func (e *eligibleList) get() []string {
	if s := e.p.Load(); s != nil {
		return *s
	}
	return nil
}

// The loop, on an in-memory ZooKeeper, in synthetic time: it writes only
// when the set changes, on a tick or on Notify, repairs what others break,
// and cleans up when Run's context ends.
func TestPublisherLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := "hs1:10000", "hs2:10000"
		var el eligibleList
		el.set(a, b)
		z := newFakeZK(fakeSession)
		cfg := testPublisherConfig(el.get)
		p := newPublisher(cfg, z)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- p.Run(ctx) }()
		check := func(what string, published []string, writes ...string) {
			t.Helper()
			synctest.Wait()
			if got := z.takeWrites(); !slices.Equal(got, writes) {
				t.Errorf("%s: writes\n %q\nwant\n %q", what, got, writes)
			}
			if got := p.Published(); !slices.Equal(got, published) {
				t.Errorf("%s: published %q, want %q", what, got, published)
			}
		}
		check("start", []string{a}, "create /pub", "create "+znodeOf(t, a, "0000000000"))

		time.Sleep(10 * cfg.Interval)
		check("ten ticks, nothing changed", []string{a})

		el.set(b, a)
		check("changed, before the tick", []string{a})
		time.Sleep(cfg.Interval)
		check("the tick after a change", []string{b},
			"create "+znodeOf(t, b, "0000000001"), "delete "+znodeOf(t, a, "0000000000"))

		el.set(a)
		p.Notify()
		check("Notify", []string{a}, "create "+znodeOf(t, a, "0000000002"), "delete "+znodeOf(t, b, "0000000001"))

		z.remove(znodeOf(t, a, "0000000002"))
		check("deleted by someone else", []string{a}, "create "+znodeOf(t, a, "0000000003"))

		el.set("hs1", "hs3:0", a) // not host:port first: skipped
		time.Sleep(cfg.Interval)
		check("bad servers skipped", []string{a})

		el.set()
		p.Notify()
		check("none eligible", nil, "delete "+znodeOf(t, a, "0000000003"))

		el.set(b)
		p.Notify()
		check("eligible again", []string{b}, "create "+znodeOf(t, b, "0000000004"))

		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := z.takeWrites(); !slices.Equal(got, []string{"delete " + znodeOf(t, b, "0000000004")}) {
			t.Errorf("stop: writes %q", got)
		}
	})
}

// Count picks the first Count eligible servers, duplicates counted once.
func TestPublisherRecords(t *testing.T) {
	f := func(count int, eligible []string, want []string) {
		t.Helper()
		cfg := testPublisherConfig(nil)
		cfg.Count = count
		p := newPublisher(cfg, newFakeZK(fakeSession))
		var got []string
		for _, r := range p.records(eligible) {
			got = append(got, r.server)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Count %d of %q: %q, want %q", count, eligible, got, want)
		}
	}
	f(1, []string{"a:1", "b:1"}, []string{"a:1"})
	f(2, []string{"a:1", "a:1", "b:1", "c:1"}, []string{"a:1", "b:1"})
	f(2, []string{"bad", "a:1", "h;x:1", "b:1"}, []string{"a:1", "b:1"})
	f(3, []string{"a:1"}, []string{"a:1"})
	f(1, nil, nil)
}

func TestPublisherConfigValidate(t *testing.T) {
	f := func(change func(*PublisherConfig), wantErr bool) {
		t.Helper()
		cfg := testPublisherConfig(func() []string { return nil })
		change(&cfg)
		if err := cfg.Validate(); (err != nil) != wantErr {
			t.Errorf("Validate() = %v, want error %v", err, wantErr)
		}
	}
	f(func(*PublisherConfig) {}, false)
	f(func(c *PublisherConfig) { c.Namespace = "/a/b/" }, false)
	f(func(c *PublisherConfig) { c.Servers = nil }, true)
	f(func(c *PublisherConfig) { c.Servers = []string{"a:1, b:1"} }, true)
	f(func(c *PublisherConfig) { c.Namespace = "" }, true)
	f(func(c *PublisherConfig) { c.Namespace = "/" }, true)
	f(func(c *PublisherConfig) { c.Namespace = "a//b" }, true)
	f(func(c *PublisherConfig) { c.Namespace = "a/../b" }, true)
	f(func(c *PublisherConfig) { c.Namespace = "zookeeper" }, true)
	f(func(c *PublisherConfig) { c.Namespace = "a\x00" }, true)
	f(func(c *PublisherConfig) { c.Count = 0 }, true)
	f(func(c *PublisherConfig) { c.Interval = 0 }, true)
	f(func(c *PublisherConfig) { c.SessionTimeout = 0 }, true)
	f(func(c *PublisherConfig) { c.Eligible = nil }, true)
	f(func(c *PublisherConfig) { c.Version = "a;b" }, true)
}

// With ZooKeeper unreachable from the start, a Publisher's Run still
// returns when its context ends (with the reason it could not delete),
// and so does a Watcher's.
func TestStopWithoutZooKeeper(t *testing.T) {
	g := &gate{}
	g.cut()
	var el eligibleList
	el.set("hs1:10000")
	cfg := testPublisherConfig(el.get)
	cfg.Servers = []string{"127.0.0.1:1"}
	cfg.dial = g.dial
	cfg.Logger = testLogger(t)
	p, err := NewPublisher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wcfg := DefaultWatcherConfig()
	wcfg.Servers = cfg.Servers
	wcfg.dial = g.dial
	wcfg.Logger = cfg.Logger
	w, err := NewWatcher(wcfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watched, published := make(chan error, 1), make(chan error, 1)
	go func() { watched <- w.Run(ctx) }()
	go func() { published <- p.Run(ctx) }()
	cancel()
	timeout := time.After(zkWait)
	select {
	case err := <-watched:
		if err != nil {
			t.Errorf("watcher Run: %v", err)
		}
	case <-timeout:
		t.Fatalf("watcher hung without ZooKeeper for %v", zkWait)
	}
	select {
	case err := <-published:
		if err == nil {
			t.Error("publisher stopped without ZooKeeper: no error")
		}
		t.Logf("publisher stopped without ZooKeeper: %v", err)
	case <-timeout:
		t.Fatalf("publisher hung without ZooKeeper for %v", zkWait)
	}
	if got := p.Published(); len(got) != 0 {
		t.Errorf("published %q without ZooKeeper", got)
	}
}
