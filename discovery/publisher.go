package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkConn is what a Publisher asks of ZooKeeper; *zk.Conn has it.
type zkConn interface {
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Get(path string) ([]byte, *zk.Stat, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	Delete(path string, version int32) error
	SessionID() int64
}

// Publisher keeps, under /<namespace>, one ephemeral sequential znode in
// HiveServer2's own format (Record) for each of the best Count eligible
// HiveServers, so a JDBC client that discovers HiveServer2 through
// ZooKeeper (serviceDiscoveryMode=zooKeeper;zooKeeperNamespace=<namespace>)
// connects to one of them, unmodified.
//
// It asks Eligible every Interval and whenever Notify is called, and
// writes to ZooKeeper only when the published set changes: it creates the
// new znodes first, then deletes the old ones, so a client never finds the
// namespace empty during a switch. It publishes nothing but what Eligible
// returns; when that is empty it removes its znodes (clients then fail as
// "no HiveServer2 in ZooKeeper" rather than land on a slow host).
//
// It watches the namespace, so it puts back a znode of its own that
// someone deleted, and after its ZooKeeper session expired (its znodes
// went with it) it creates them again under the new session. A znode is
// its own when its ephemeral owner is its session; other Publishers'
// znodes (service replicas publishing into the same namespace) are left
// alone: clients pick at random among all of them.
//
// A Publisher is safe for concurrent use. Build it with NewPublisher,
// then Run it; when Run's context ends it removes its znodes.
type Publisher struct {
	cfg     PublisherConfig
	path    string
	log     *slog.Logger
	running atomic.Bool

	published atomic.Pointer[[]string]
	notify    chan struct{}

	// Owned by Run.
	zk            zkConn          // set by Run, or by tests that bring their own
	unpublishable map[string]bool // servers Record refused, logged once
}

// record is one znode a Publisher wants: Record's result for a server.
type record struct {
	server, prefix string
	data           []byte
}

// NewPublisher returns a Publisher for cfg, or the error of
// cfg.Validate. It neither connects nor starts anything: Run does.
func NewPublisher(cfg PublisherConfig) (*Publisher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hiveserver2 publisher config: %w", err)
	}
	return newPublisher(cfg, nil), nil
}

// newPublisher is NewPublisher without the check, on conn when it is not
// nil: tests bring their own ZooKeeper that way, and Run then uses it.
func newPublisher(cfg PublisherConfig, conn zkConn) *Publisher {
	p := &Publisher{
		cfg:    cfg,
		log:    cfg.Logger,
		zk:     conn,
		notify: make(chan struct{}, 1),

		unpublishable: map[string]bool{},
	}
	p.path, _ = namespacePath(cfg.Namespace)
	if p.log == nil {
		p.log = slog.Default()
	}
	p.log = p.log.With("namespace", p.path)
	p.published.Store(new([]string))
	return p
}

// Notify makes the Publisher ask Eligible again now (the pick may have
// changed). It never blocks.
func (p *Publisher) Notify() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// Published returns the servers whose znodes the last successful write
// left in ZooKeeper, in Eligible's order at that time. The caller must not
// modify the slice.
func (p *Publisher) Published() []string { return *p.published.Load() }

// Run connects to ZooKeeper and publishes until ctx ends, without
// waiting for the first write. Then it deletes its znodes, ends its
// ZooKeeper session (which would delete them too) and returns once
// everything it started has stopped: nil, or why the znodes could not be
// deleted. While ZooKeeper is unreachable it retries; it fails before ctx
// ends only when it cannot start a ZooKeeper client at all. Run may be
// called once.
func (p *Publisher) Run(ctx context.Context) error {
	if p.running.Swap(true) {
		panic("BUG: discovery.Publisher.Run called twice")
	}
	if p.zk == nil {
		s, err := connect(p.cfg.Servers, p.cfg.SessionTimeout, p.cfg.dial, p.log)
		if err != nil {
			return err
		}
		defer s.close()
		p.zk = s.conn
		if p.cfg.wrap != nil {
			p.zk = p.cfg.wrap(p.zk)
		}
	}
	if err := p.loop(ctx); err != nil {
		return fmt.Errorf("unpublish from %s: %w", p.path, err)
	}
	return nil
}

// loop publishes until ctx ends, then removes the znodes and returns the
// error of that.
func (p *Publisher) loop(ctx context.Context) error {
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	var (
		applied []record
		changed <-chan zk.Event // the namespace's children changed
		stale   = true          // ZooKeeper may not hold applied
		failing bool            // the last reconcile failed
	)
	for {
		want := p.records(p.cfg.Eligible())
		if stale || !sameRecords(want, applied) {
			ch, err := p.reconcile(want)
			if err != nil {
				// Warn once per outage; go-zookeeper retries every
				// second while ZooKeeper is down.
				level := slog.LevelWarn
				if failing {
					level = slog.LevelDebug
				}
				p.log.Log(ctx, level, "hiveserver2 publisher: will retry", "err", err, "every", p.cfg.Interval)
				stale, changed, failing = true, nil, true
			} else {
				if failing {
					p.log.Info("hiveserver2 publisher: zookeeper writes work again")
					failing = false
				}
				if !sameRecords(want, applied) {
					p.logChange(applied, want)
				}
				applied, stale, changed = want, false, ch
				servers := make([]string, len(want))
				for i, r := range want {
					servers[i] = r.server
				}
				p.published.Store(&servers)
			}
		}
		select {
		case <-ctx.Done():
			_, err := p.reconcile(nil)
			return err
		case <-p.notify:
		case <-tick.C:
		case <-changed:
			stale, changed = true, nil
		}
	}
}

// records turns Eligible's answer into the first Count records that can
// be written, skipping (and logging) servers that cannot.
func (p *Publisher) records(eligible []string) []record {
	out := make([]record, 0, p.cfg.Count)
	for _, server := range eligible {
		if len(out) == p.cfg.Count {
			break
		}
		if slices.ContainsFunc(out, func(r record) bool { return r.server == server }) {
			continue
		}
		var reg *Registration
		if p.cfg.Registration != nil {
			if r, ok := p.cfg.Registration(server); ok {
				reg = &r
			}
		}
		prefix, data, err := Record(server, reg, p.cfg.Version, p.cfg.PlainData)
		if err != nil {
			if !p.unpublishable[server] {
				p.unpublishable[server] = true
				p.log.Warn("hiveserver2 publisher: skipping a HiveServer that cannot be published", "server", server, "err", err)
			}
			continue
		}
		delete(p.unpublishable, server)
		out = append(out, record{server, prefix, data})
	}
	if len(p.unpublishable) > len(eligible) {
		for s := range p.unpublishable {
			if !slices.Contains(eligible, s) {
				delete(p.unpublishable, s)
			}
		}
	}
	return out
}

func sameRecords(a, b []record) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.ContainsFunc(b, func(s record) bool {
			return s.prefix == r.prefix && string(s.data) == string(r.data)
		}) {
			return false
		}
	}
	return true
}

func (p *Publisher) logChange(from, to []record) {
	names := func(rs []record) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.server
		}
		return out
	}
	if len(to) == 0 {
		p.log.Warn("hiveserver2 publisher: no eligible HiveServer; publishing none", "was", names(from))
		return
	}
	p.log.Info("hiveserver2 publisher: published", "servers", names(to), "was", names(from))
}
