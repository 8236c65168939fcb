package discovery

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// DefaultKyuubiNamespace is where Kyuubi servers register by default
// (kyuubi.ha.namespace).
const DefaultKyuubiNamespace = "kyuubi"

// EtcdWatcherConfig is the configuration of an EtcdWatcher. Start from
// DefaultEtcdWatcherConfig and set Endpoints.
type EtcdWatcherConfig struct {
	// Endpoints is the etcd cluster, "host:port" each (Kyuubi's
	// kyuubi.ha.addresses with an etcd client).
	Endpoints []string
	// Namespace is the key prefix the servers register under, without the
	// slashes (kyuubi.ha.namespace, default DefaultKyuubiNamespace).
	Namespace string
	// DialTimeout bounds one connection attempt (default 5s).
	DialTimeout time.Duration
	// Username and Password, when Username is set, are the etcd user the
	// watcher reads as (etcd's authentication); empty: none.
	Username, Password string
	// TLS, when set, is the client's TLS configuration (Kyuubi's
	// kyuubi.ha.etcd.ssl.*): etcd is reached over TLS only. Nil: plain.
	TLS *tls.Config
	// OnChange, when set, is called from Run after the set of servers
	// changed. It must not block.
	OnChange func()
	// Logger receives servers that come and go and etcd trouble; nil
	// means slog.Default().
	Logger *slog.Logger
}

// DefaultEtcdWatcherConfig returns an EtcdWatcherConfig with the defaults
// above and no endpoints.
func DefaultEtcdWatcherConfig() EtcdWatcherConfig {
	return EtcdWatcherConfig{Namespace: DefaultKyuubiNamespace, DialTimeout: 5 * time.Second}
}

// Validate returns an error naming the first broken rule, or nil.
func (c EtcdWatcherConfig) Validate() error {
	if len(c.Endpoints) == 0 {
		return errors.New("no etcd endpoint")
	}
	for _, e := range c.Endpoints {
		if e == "" || strings.ContainsAny(e, " ,/\t\n") {
			return fmt.Errorf("etcd endpoint %q is not host:port", e)
		}
	}
	if _, err := namespacePath(c.Namespace); err != nil {
		return err
	}
	if c.DialTimeout < 100*time.Millisecond || c.DialTimeout > time.Minute {
		return fmt.Errorf("etcd dial timeout must be within 100ms..1m, got %v", c.DialTimeout)
	}
	return nil
}

// EtcdWatcher knows the servers registered in etcd the way Kyuubi's
// EtcdDiscoveryClient registers them: keys /<namespace>/serverUri=host:port;
// version=V;sequence=NNNNNNNNNN attached to a lease kept alive, with the
// value host:port. It reads every key under /<namespace>/ and then
// watches from the next revision, so a server whose key goes (it stopped,
// or its lease expired) is dropped as soon as etcd tells. Keys below a
// further "/" (the lock keys /<namespace>/lock/<lease>) and names starting
// with "lock" are not registrations and are ignored; another name that
// does not parse is skipped and logged once.
//
// While etcd is unreachable it keeps the last set it read; after the
// watch breaks (a compaction, a lost leader) it reads everything again.
//
// An EtcdWatcher is a hiveserver.Source; Registration fits a Publisher.
// It is safe for concurrent use. Build it with NewEtcdWatcher, then Run it.
type EtcdWatcher struct {
	cfg     EtcdWatcherConfig
	prefix  string // "/<namespace>/"
	log     *slog.Logger
	running atomic.Bool

	registrations

	// Owned by Run.
	keys map[string]Registration // registration key -> what it holds
	bad  map[string]bool         // keys already logged as unparsable
}

// NewEtcdWatcher returns an EtcdWatcher for cfg, or the error of
// cfg.Validate. It neither connects nor starts anything: Run does.
func NewEtcdWatcher(cfg EtcdWatcherConfig) (*EtcdWatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("etcd watcher config: %w", err)
	}
	p, _ := namespacePath(cfg.Namespace)
	w := &EtcdWatcher{cfg: cfg, prefix: p + "/", log: cfg.Logger,
		keys: map[string]Registration{}, bad: map[string]bool{}}
	if w.log == nil {
		w.log = slog.Default()
	}
	w.log = w.log.With("etcdPrefix", w.prefix)
	w.init()
	return w, nil
}

// Run connects to etcd and watches until ctx ends, then closes the client
// and returns nil. While etcd is unreachable it retries; it fails only
// when it cannot build a client at all. Run may be called once.
func (w *EtcdWatcher) Run(ctx context.Context) error {
	if w.running.Swap(true) {
		panic("BUG: discovery.EtcdWatcher.Run called twice")
	}
	c, err := etcdDial{servers: w.cfg.Endpoints, user: w.cfg.Username, password: w.cfg.Password, tls: w.cfg.TLS, dialTimeout: w.cfg.DialTimeout}.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	delay := time.Duration(0)
	for {
		err := w.follow(ctx, c)
		if ctx.Err() != nil {
			return nil
		}
		level := slog.LevelWarn
		if delay > 0 {
			level = slog.LevelDebug // once per outage
		}
		delay = nextRetryDelay(delay)
		w.log.Log(ctx, level, "etcd watcher: will read again", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// follow reads the prefix, publishes it, then applies the watch's events
// until the watch breaks or ctx ends. It returns why it stopped.
func (w *EtcdWatcher) follow(ctx context.Context, c *clientv3.Client) error {
	gctx, cancel := context.WithTimeout(ctx, max(w.cfg.DialTimeout, 5*time.Second))
	resp, err := c.Get(gctx, w.prefix, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return fmt.Errorf("get %s*: %w", w.prefix, err)
	}
	clear(w.keys)
	logged := w.bad // keys still there stay logged; the others are forgotten
	w.bad = map[string]bool{}
	for _, kv := range resp.Kvs {
		if logged[string(kv.Key)] {
			w.bad[string(kv.Key)] = true
		}
		w.put(string(kv.Key), kv.Value)
	}
	w.publish()
	wctx, stop := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer stop()
	events := c.Watch(wctx, w.prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1),
		clientv3.WithPrevKV())
	for wr := range events {
		if err := wr.Err(); err != nil {
			return fmt.Errorf("watch %s*: %w", w.prefix, err)
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				delete(w.keys, string(ev.Kv.Key))
				delete(w.bad, string(ev.Kv.Key))
			} else {
				w.put(string(ev.Kv.Key), ev.Kv.Value)
			}
		}
		w.publish()
	}
	return fmt.Errorf("watch %s*: closed", w.prefix)
}

// put records the key if it is a registration.
func (w *EtcdWatcher) put(key string, value []byte) {
	child := strings.TrimPrefix(key, w.prefix)
	if child == "" || strings.Contains(child, "/") || strings.HasPrefix(child, "lock") {
		return // the lock keys, or the namespace itself
	}
	name, err := ParseName(child)
	if err != nil {
		if !w.bad[key] {
			w.bad[key] = true
			w.log.Warn("etcd watcher: skipping a key that is not a server registration", "err", err)
		}
		return
	}
	w.keys[key] = Registration{Name: name, Data: append([]byte(nil), value...)}
}

// publish makes the keys held the snapshot and tells about what changed.
func (w *EtcdWatcher) publish() {
	regs := make(map[string]Registration, len(w.keys))
	for _, r := range w.keys {
		if old, ok := regs[r.Name.Server]; !ok || r.Name.newer(old.Name) {
			regs[r.Name.Server] = r
		}
	}
	if !w.registrations.publish(regs, w.log, "server registered in etcd", "server gone from etcd") {
		return
	}
	if w.cfg.OnChange != nil {
		w.cfg.OnChange()
	}
}
