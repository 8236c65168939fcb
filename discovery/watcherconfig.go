package discovery

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultNamespace is where HiveServer2 registers by default: Hive's
// hive.server2.zookeeper.namespace, and the JDBC driver's default
// zooKeeperNamespace.
const DefaultNamespace = "hiveserver2"

// WatcherConfig is the configuration of a Watcher. Start from
// DefaultWatcherConfig and set Servers.
type WatcherConfig struct {
	// Servers is the ZooKeeper ensemble, "host:port" each (the
	// -hs2-zookeeper flag; Hive's hive.zookeeper.quorum).
	Servers []string
	// Namespace is the parent znode the HiveServers register under (the
	// -hs2-namespace flag, default DefaultNamespace, Hive's
	// hive.server2.zookeeper.namespace). It need not exist yet.
	Namespace string
	// SessionTimeout is the ZooKeeper session timeout (default
	// DefaultSessionTimeout).
	SessionTimeout time.Duration
	// OnChange, when set, is called from Run after
	// the set of servers changed. It must not block; a Publisher's Notify
	// fits.
	OnChange func()
	// Logger receives registrations that come and go and ZooKeeper
	// trouble; nil means slog.Default().
	Logger *slog.Logger

	dial zk.Dialer // tests cut the network with it
}

// DefaultWatcherConfig returns a WatcherConfig with the defaults above
// and no servers.
func DefaultWatcherConfig() WatcherConfig {
	return WatcherConfig{Namespace: DefaultNamespace, SessionTimeout: DefaultSessionTimeout}
}

// Validate returns an error naming the first broken rule, or nil.
func (c WatcherConfig) Validate() error {
	if err := checkServers(c.Servers); err != nil {
		return err
	}
	if _, err := namespacePath(c.Namespace); err != nil {
		return err
	}
	if c.SessionTimeout < time.Second || c.SessionTimeout > time.Hour {
		return fmt.Errorf("zookeeper session timeout must be within 1s..1h, got %v", c.SessionTimeout)
	}
	return nil
}
