package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

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

// watcher returns the watcher of HiveServer2's registrations, nil
// without -hs2-zookeeper; onChange is called after its set changed.
// Nothing runs before its Run.
func (f *hs2Flags) watcher(log *slog.Logger, onChange func()) (*discovery.Watcher, error) {
	if f.zookeeper == "" {
		return nil, nil
	}
	servers, _ := discovery.ParseServers(f.zookeeper) // checked
	cfg := discovery.DefaultWatcherConfig()
	cfg.Servers, cfg.Namespace, cfg.Logger, cfg.OnChange = servers, f.namespace, log, onChange
	w, err := discovery.NewWatcher(cfg)
	if err != nil {
		return nil, fmt.Errorf("watch HiveServer2 registrations: %w", err)
	}
	return w, nil
}

// publisher returns the configuration of the publisher of the first
// HiveServers that eligible returns, with what registration knows of
// their registrations (the watchers'); nil without
// -hs2-publish-namespace. The leader's work runs a Publisher of it each
// term (discovery.LeaderWork), which writes only while this replica leads
// and takes the namespace over from an earlier leader.
func (f *hs2Flags) publisher(log *slog.Logger, eligible func() []string, registration func(string) (discovery.Registration, bool)) *discovery.PublisherConfig {
	if f.publishNS == "" {
		return nil
	}
	servers, _ := discovery.ParseServers(f.zookeeper) // checked
	cfg := discovery.DefaultPublisherConfig()
	cfg.Servers, cfg.Namespace, cfg.Count = servers, f.publishNS, f.count
	cfg.Eligible, cfg.Registration, cfg.Logger = eligible, registration, log
	return &cfg
}
