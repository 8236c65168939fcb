package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Watcher knows the HiveServers registered in ZooKeeper the way
// HiveServer2 registers itself: the ephemeral children of /<namespace>
// named serverUri=host:port;version=V;sequence=N. It watches the
// children, so a HiveServer whose znode goes (it stopped, or its
// ZooKeeper session expired) is dropped as soon as ZooKeeper tells. A
// child whose name does not parse is skipped and logged once.
//
// While ZooKeeper is unreachable the Watcher keeps the last set it read;
// after a reconnect (or a new session, when the old one expired) it reads
// the children again.
//
// A Watcher is a hiveserver.Source. It is safe for concurrent use. Build
// it with NewWatcher, then Run it; it knows no server before Run has read
// the namespace.
type Watcher struct {
	cfg     WatcherConfig
	path    string
	log     *slog.Logger
	running atomic.Bool

	registrations

	// Owned by Run.
	s    *session
	data map[string][]byte // child name → data, for children still present
	bad  map[string]bool   // child names already logged as unparsable
}

// NewWatcher returns a Watcher for cfg, or the error of cfg.Validate. It
// neither connects nor starts anything: Run does.
func NewWatcher(cfg WatcherConfig) (*Watcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hiveserver2 watcher config: %w", err)
	}
	w := &Watcher{
		cfg:  cfg,
		log:  cfg.Logger,
		data: map[string][]byte{},
		bad:  map[string]bool{},
	}
	w.path, _ = namespacePath(cfg.Namespace)
	if w.log == nil {
		w.log = slog.Default()
	}
	w.log = w.log.With("namespace", w.path)
	w.init()
	return w, nil
}

// Run connects to ZooKeeper and watches until ctx ends; then it ends the
// ZooKeeper session and returns nil once everything it started has
// stopped. It does not wait for the first read (Synced tells). While
// ZooKeeper is unreachable it retries; it fails only when it cannot start
// a ZooKeeper client at all. Run may be called once.
func (w *Watcher) Run(ctx context.Context) error {
	if w.running.Swap(true) {
		panic("BUG: discovery.Watcher.Run called twice")
	}
	s, err := connect(w.cfg.Servers, w.cfg.SessionTimeout, w.cfg.dial, w.log)
	if err != nil {
		return err
	}
	w.s = s
	stop := context.AfterFunc(ctx, s.conn.Close) // fails the call in flight, if any
	defer stop()
	w.loop(ctx)
	s.close()
	return nil
}

// loop reads and waits until ctx ends, retrying failed reads.
func (w *Watcher) loop(ctx context.Context) {
	delay := time.Duration(0)
	for {
		err := w.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			if delay > 0 {
				w.log.Info("hiveserver2 watcher: zookeeper reads work again")
			}
			delay = 0
			continue
		}
		// Warn once per outage.
		level := slog.LevelWarn
		if delay > 0 {
			level = slog.LevelDebug
		}
		delay = nextRetryDelay(delay)
		w.log.Log(ctx, level, "hiveserver2 watcher: will retry", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// step reads the children of the namespace, publishes them, and waits
// until ZooKeeper says they changed (or that the watch is gone: the
// session expired) or ctx ends.
func (w *Watcher) step(ctx context.Context) error {
	children, _, changed, err := w.s.conn.ChildrenW(w.path)
	if errors.Is(err, zk.ErrNoNode) {
		exists, _, created, err := w.s.conn.ExistsW(w.path)
		if err != nil {
			return fmt.Errorf("watch %s: %w", w.path, err)
		}
		if exists {
			return nil // created meanwhile: list it
		}
		w.publish(nil)
		return w.wait(ctx, created)
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", w.path, err)
	}
	regs, err := w.read(children)
	if err != nil {
		return err
	}
	w.publish(regs)
	return w.wait(ctx, changed)
}

func (w *Watcher) wait(ctx context.Context, ch <-chan zk.Event) error {
	select {
	case <-ch:
		// A change, or the watch is gone (the session expired, the
		// connection closes): read again either way.
	case <-ctx.Done():
	}
	return nil
}

// read parses the children's names and reads the data of those it has
// not read yet (HiveServer2 never changes its znode's data).
func (w *Watcher) read(children []string) (map[string]Registration, error) {
	present := make(map[string]bool, len(children))
	regs := make(map[string]Registration, len(children))
	for _, child := range children {
		present[child] = true
		name, err := ParseName(child)
		if err != nil {
			if !w.bad[child] {
				w.bad[child] = true
				w.log.Warn("hiveserver2 watcher: skipping a znode that is not a HiveServer2 registration", "err", err)
			}
			continue
		}
		data, ok := w.data[child]
		if !ok {
			data, _, err = w.s.conn.Get(path.Join(w.path, child))
			if errors.Is(err, zk.ErrNoNode) {
				continue // gone already; the watch fires for it
			}
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path.Join(w.path, child), err)
			}
			w.data[child] = data
		}
		if old, ok := regs[name.Server]; !ok || name.newer(old.Name) {
			regs[name.Server] = Registration{Name: name, Data: data}
		}
	}
	for child := range w.data {
		if !present[child] {
			delete(w.data, child)
		}
	}
	for child := range w.bad {
		if !present[child] {
			delete(w.bad, child)
		}
	}
	return regs, nil
}

// publish makes regs the snapshot and tells about what changed.
func (w *Watcher) publish(regs map[string]Registration) {
	if !w.registrations.publish(regs, w.log, "hiveserver registered", "hiveserver gone") {
		return
	}
	if w.cfg.OnChange != nil {
		w.cfg.OnChange()
	}
}
