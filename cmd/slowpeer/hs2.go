package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/slowpeer/slowpeer/discovery"
)

// hs2Flags are the ZooKeeper flags of "slowpeer namenode": where
// HiveServer2 instances register themselves, and where slowpeer publishes
// the best of them for unmodified JDBC clients.
type hs2Flags struct {
	zookeeper string
	namespace string
	publishNS string
	count     int
}

func (f *hs2Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.zookeeper, "hs2-zookeeper", "", "ZooKeeper ensemble `H:P[,H:P]` where HiveServer2 registers itself (hive.zookeeper.quorum)")
	fs.StringVar(&f.namespace, "hs2-namespace", discovery.DefaultNamespace, "`NAME` of the znode HiveServer2 registers under (hive.server2.zookeeper.namespace)")
	fs.StringVar(&f.publishNS, "hs2-publish-namespace", "", "publish the best eligible HiveServers under /`NAME` for JDBC clients (zooKeeperNamespace=NAME)")
	fs.IntVar(&f.count, "hs2-publish-count", discovery.DefaultPublishCount, "how many HiveServers to publish, best first")
}

// check names the first inconsistent flag.
func (f *hs2Flags) check() error {
	if f.zookeeper == "" {
		if f.publishNS != "" {
			return errors.New("-hs2-publish-namespace needs -hs2-zookeeper")
		}
		return nil
	}
	if _, err := discovery.ParseServers(f.zookeeper); err != nil {
		return fmt.Errorf("-hs2-zookeeper: %w", err)
	}
	if f.publishNS != "" && strings.Trim(f.publishNS, "/") == strings.Trim(f.namespace, "/") {
		return fmt.Errorf("-hs2-publish-namespace %q is where HiveServer2 registers itself; clients would pick among those too", f.publishNS)
	}
	if f.count < 1 {
		return fmt.Errorf("-hs2-publish-count %d: must be at least 1", f.count)
	}
	return nil
}

// hs2 is what the ZooKeeper flags started: a watcher of HiveServer2's
// registrations (nil without -hs2-zookeeper) and a publisher (nil without
// -hs2-publish-namespace).
type hs2 struct {
	watcher   *discovery.Watcher
	publisher atomic.Pointer[discovery.Publisher]
	log       *slog.Logger
}

// watch starts the watcher. Its changes wake the publisher, once there is
// one.
func (f *hs2Flags) watch(log *slog.Logger) (*hs2, error) {
	h := &hs2{log: log}
	if f.zookeeper == "" {
		return h, nil
	}
	servers, _ := discovery.ParseServers(f.zookeeper) // checked
	cfg := discovery.DefaultWatcherConfig()
	cfg.Servers, cfg.Namespace, cfg.Logger = servers, f.namespace, log
	cfg.OnChange = func() {
		if p := h.publisher.Load(); p != nil {
			p.Notify()
		}
	}
	w, err := discovery.NewWatcher(cfg)
	if err != nil {
		return nil, fmt.Errorf("watch HiveServer2 registrations: %w", err)
	}
	h.watcher = w
	return h, nil
}

// publish starts the publisher of the first HiveServers that eligible
// returns, when -hs2-publish-namespace is set.
func (f *hs2Flags) publish(h *hs2, eligible func() []string) error {
	if f.publishNS == "" {
		return nil
	}
	servers, _ := discovery.ParseServers(f.zookeeper) // checked
	cfg := discovery.DefaultPublisherConfig()
	cfg.Servers, cfg.Namespace, cfg.Count = servers, f.publishNS, f.count
	cfg.Eligible, cfg.Registration, cfg.Logger = eligible, h.watcher.Registration, h.log
	p, err := discovery.NewPublisher(cfg)
	if err != nil {
		return fmt.Errorf("publish HiveServers: %w", err)
	}
	h.publisher.Store(p)
	return nil
}

// close stops the publisher (deleting its znodes), then the watcher.
func (h *hs2) close() {
	if p := h.publisher.Load(); p != nil {
		if err := p.Close(); err != nil {
			h.log.Warn("unpublish HiveServers", slog.Any("err", err))
		}
	}
	if h.watcher != nil {
		h.watcher.Close()
	}
}
