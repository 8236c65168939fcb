package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Registry reads the service replicas registered under a RegistryURL, as
// agents (-namenode zk://...), "slowpeer report" and "slowpeer hiveserver
// pick" find them. It is safe for concurrent use. Open it with
// OpenRegistry; Close it when done.
//
// It has no New + Run shape because it is a client, not a component: its
// work runs in its callers' goroutines (Members reads once; Follow runs
// until its context ends, as a Run would, and several may follow at
// once). The one goroutine it owns follows the ZooKeeper session's events
// from OpenRegistry on; Close ends the session and returns once that
// goroutine has stopped.
type Registry struct {
	url     RegistryURL
	timeout time.Duration
	log     *slog.Logger
	zk      *zk.Conn         // ZooKeeper
	zkDone  chan struct{}    // closed when the session's events end
	etcd    *clientv3.Client // etcd
}

// OpenRegistry starts a client of the registry at u, with the ZooKeeper
// session timeout timeout (0 means DefaultRegistryTimeout; etcd has no
// session for a reader). It does not wait for the connection: the calls
// do. A nil log means slog.Default().
func OpenRegistry(u RegistryURL, timeout time.Duration, log *slog.Logger) (*Registry, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	if timeout == 0 {
		timeout = DefaultRegistryTimeout
	}
	if log == nil {
		log = slog.Default()
	}
	g := &Registry{url: u, timeout: timeout, log: log.With("registry", u.String())}
	switch u.Kind {
	case ZooKeeperKind:
		conn, events, err := zk.Connect(u.Servers, timeout, zk.WithLogger(zkLogger{g.log}), zk.WithMaxBufferSize(maxZKBuffer))
		if err != nil {
			return nil, fmt.Errorf("connect to zookeeper %s: %w", strings.Join(u.Servers, ","), err)
		}
		g.zk, g.zkDone = conn, make(chan struct{})
		go func() {
			defer close(g.zkDone)
			down := false
			for ev := range events {
				switch {
				case ev.Type != zk.EventSession:
				case ev.State == zk.StateDisconnected && !down:
					down = true
					g.log.Warn("registry: disconnected from zookeeper; keeping the last known replicas")
				case ev.State == zk.StateHasSession && down:
					down = false
					g.log.Info("registry: connected to zookeeper again")
				}
			}
		}()
	case EtcdKind:
		cli, err := newEtcdClient(u)
		if err != nil {
			return nil, err
		}
		g.etcd = cli
	}
	return g, nil
}

// URL returns the registry's URL.
func (g *Registry) URL() RegistryURL { return g.url }

// Close ends the client.
func (g *Registry) Close() error {
	if g.zk != nil {
		g.zk.Close()
		<-g.zkDone
		return nil
	}
	return g.etcd.Close()
}

// Members reads the registered replicas once, sorted by their counter.
// It fails when ctx ends before the registry answers.
func (g *Registry) Members(ctx context.Context) ([]Member, error) {
	if g.etcd != nil {
		return etcdMembers(ctx, g.etcd, g.url.MembersPath())
	}
	type result struct {
		ms  []Member
		err error
	}
	got := make(chan result, 1)
	go func() { // go-zookeeper's calls take no context
		ms, _, err := zkMembers(g.zk, g.url.MembersPath())
		got <- result{ms, err}
	}()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("read %s: %w", g.url, ctx.Err())
	case r := <-got:
		if errors.Is(r.err, zk.ErrNoNode) {
			return nil, nil
		}
		return r.ms, r.err
	}
}

// Follow calls f with the registered replicas at once and after every
// change, until ctx ends; then it returns nil. While the registry is out
// of reach it keeps the last set (f is not called) and logs that it does;
// it returns an error only for a registry it cannot read at all.
func (g *Registry) Follow(ctx context.Context, f func([]Member)) error {
	var last []Member
	known := false
	lost := false
	report := func(ms []Member) {
		if lost {
			g.log.Info("registry: reachable again", slog.Int("replicas", len(ms)))
			lost = false
		}
		if !known || !slices.Equal(ms, last) {
			known, last = true, ms
			f(ms)
		}
	}
	failed := func(err error) {
		if !lost {
			g.log.Warn("registry: out of reach; keeping the last known replicas", slog.Int("replicas", len(last)), slog.Any("err", err))
			lost = true
		}
	}
	if g.etcd != nil {
		return g.followEtcd(ctx, report, failed)
	}
	return g.followZooKeeper(ctx, report, failed)
}

func (g *Registry) followZooKeeper(ctx context.Context, report func([]Member), failed func(error)) error {
	dir := g.url.MembersPath()
	var delay time.Duration
	for ctx.Err() == nil {
		ms, w, err := zkMembers(g.zk, dir)
		if errors.Is(err, zk.ErrNoNode) {
			report(nil)
			ok, _, ew, eerr := g.zk.ExistsW(dir)
			if eerr == nil {
				if !ok {
					select {
					case <-ctx.Done():
					case <-ew:
					}
				}
				continue // created meanwhile, or now: read it
			}
			err = eerr
		}
		if err != nil {
			failed(err)
			delay = nextRetryDelay(delay)
			select {
			case <-ctx.Done():
			case <-time.After(delay):
			}
			continue
		}
		delay = 0
		report(ms)
		select {
		case <-ctx.Done():
		case ev := <-w:
			if ev.Err != nil && !errors.Is(ev.Err, zk.ErrSessionExpired) {
				failed(ev.Err)
			}
		}
	}
	return nil
}

// followEtcd reads the registrations and watches them; a read every
// timeout tells whether etcd is still there (an etcd watch only waits).
func (g *Registry) followEtcd(ctx context.Context, report func([]Member), failed func(error)) error {
	dir := g.url.MembersPath()
	tick := time.NewTicker(g.timeout)
	defer tick.Stop()
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(ctx)
		watch := g.etcd.Watch(clientv3.WithRequireLeader(wctx), dir+"/", clientv3.WithPrefix())
		read := func() bool {
			rctx, rcancel := context.WithTimeout(wctx, g.timeout)
			defer rcancel()
			ms, err := etcdMembers(rctx, g.etcd, dir)
			if err != nil {
				failed(err)
				return false
			}
			report(ms)
			return true
		}
		read()
	watching:
		for {
			select {
			case <-ctx.Done():
				break watching
			case wr, ok := <-watch:
				if !ok || wr.Err() != nil {
					break watching // watch again
				}
				read()
			case <-tick.C:
				read()
			}
		}
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(minRetryDelay):
		}
	}
	return nil
}
