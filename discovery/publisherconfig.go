package discovery

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
)

// Publisher defaults.
const (
	// DefaultPublishCount is how many HiveServers a Publisher publishes:
	// the best one, so every new JDBC connection goes there.
	DefaultPublishCount = 1
	// DefaultPublishInterval is how often a Publisher asks for the
	// eligible HiveServers when nobody calls Notify.
	DefaultPublishInterval = time.Second
	// DefaultVersion is the version= of the names a Publisher writes for
	// HiveServers it has no registration of (those listed with
	// -hiveservers or known from their events).
	DefaultVersion = "slowpeer"
	// maxPublishCount bounds Count.
	maxPublishCount = 1000
)

// PublisherConfig is the configuration of a Publisher. Start from
// DefaultPublisherConfig and set Servers, Namespace and Eligible.
type PublisherConfig struct {
	// Servers is the ZooKeeper ensemble, "host:port" each (the
	// -hs2-zookeeper flag).
	Servers []string
	// Namespace is the parent znode to publish under (the
	// -hs2-publish-namespace flag), created persistent when missing. JDBC
	// clients name it in zooKeeperNamespace=. It must not be where the
	// HiveServers register themselves, or clients would pick among those
	// too.
	Namespace string
	// Count is how many HiveServers to publish, the first of Eligible
	// (the -hs2-publish-count flag, default DefaultPublishCount).
	Count int
	// Interval is how often Eligible is asked without Notify (default
	// DefaultPublishInterval). Asking costs no ZooKeeper call; only a
	// change of the published set does.
	Interval time.Duration
	// SessionTimeout is the ZooKeeper session timeout (default
	// DefaultSessionTimeout): how long the znodes of a Publisher that died
	// without closing outlive it.
	SessionTimeout time.Duration
	// Eligible returns the HiveServers that may be published ("host:port"
	// each), best first. It is called from Run and
	// should be cheap. Required.
	Eligible func() []string
	// Registration, when set, returns what a HiveServer registered about
	// itself (Watcher.Registration), so the published data carry its
	// transport mode, authentication and SSL (see Record).
	Registration func(server string) (Registration, bool)
	// Version is the version= of names written for HiveServers without a
	// registration (default DefaultVersion).
	Version string
	// PlainData writes "host:port" data instead of HiveServer2's configs,
	// as hive.server2.zookeeper.publish.configs=false does (for JDBC
	// drivers before Hive 1.3).
	PlainData bool
	// Leading, when set, is asked before each write but the deletion of
	// its own znodes: while it says false the Publisher writes nothing.
	// It is the leader's check (Replica.Leading) when only the leader of
	// the service replicas publishes.
	Leading func() bool
	// TakeOver deletes the znodes of other sessions in the namespace
	// before it creates its own: set it when one publisher alone may
	// publish there (the leader), so a leader that died or hung leaves
	// nothing behind for clients to land on.
	TakeOver bool
	// Logger receives changes of the published set and ZooKeeper trouble;
	// nil means slog.Default().
	Logger *slog.Logger

	dial zk.Dialer           // tests cut the network with it
	wrap func(zkConn) zkConn // tests record the calls
}

// DefaultPublisherConfig returns a PublisherConfig with the defaults above
// and no servers, namespace or Eligible.
func DefaultPublisherConfig() PublisherConfig {
	return PublisherConfig{
		Count:          DefaultPublishCount,
		Interval:       DefaultPublishInterval,
		SessionTimeout: DefaultSessionTimeout,
		Version:        DefaultVersion,
	}
}

// Validate returns an error naming the first broken rule, or nil.
func (c PublisherConfig) Validate() error {
	if err := checkServers(c.Servers); err != nil {
		return err
	}
	if _, err := namespacePath(c.Namespace); err != nil {
		return err
	}
	if c.Count < 1 || c.Count > maxPublishCount {
		return fmt.Errorf("publish count must be within 1..%d, got %d", maxPublishCount, c.Count)
	}
	if c.Interval < 10*time.Millisecond || c.Interval > time.Hour {
		return fmt.Errorf("publish interval must be within 10ms..1h, got %v", c.Interval)
	}
	if c.SessionTimeout < time.Second || c.SessionTimeout > time.Hour {
		return fmt.Errorf("zookeeper session timeout must be within 1s..1h, got %v", c.SessionTimeout)
	}
	if c.Eligible == nil {
		return errors.New("no Eligible function")
	}
	return checkVersion(c.Version)
}
