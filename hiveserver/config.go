package hiveserver

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// The configuration keys of the picker, read from hdfs-site.xml or -D as
// the daemon's other keys, with their defaults.
const (
	// QueryTimeoutKey is how long a statement may run before it counts as
	// lost rather than running. A bare number is milliseconds.
	QueryTimeoutKey = "slowpeer.hiveserver.query.timeout"
	// DefaultQueryTimeout is a day: no Hive statement of the platform runs
	// that long, and a HiveServer that died mid-statement stops weighing
	// on the pick after it.
	DefaultQueryTimeout = 24 * time.Hour

	// MinRemainingKey is the least expected remaining time a running
	// statement with history counts for. A bare number is milliseconds.
	MinRemainingKey = "slowpeer.hiveserver.load.min.remaining"
	// DefaultMinRemaining is one second: a statement that has outrun its
	// job's mean duration still occupies its HiveServer.
	DefaultMinRemaining = time.Second

	// DefaultCostKey is the expected remaining time of a running statement
	// whose jobName has no finished statement yet. A bare number is
	// milliseconds.
	DefaultCostKey = "slowpeer.hiveserver.load.default"
	// DefaultDefaultCost is one minute, the order of a typical Hive
	// statement of a reporting platform.
	DefaultDefaultCost = time.Minute

	// ServerExpiryKey is how long a HiveServer known only from its events
	// stays known after its last event. A bare number is milliseconds.
	ServerExpiryKey = "slowpeer.hiveserver.server.expiry"
	// DefaultServerExpiry is a day, so an idle HiveServer survives a night
	// without statements; list servers with -hiveservers or a registry
	// for membership that follows them exactly.
	DefaultServerExpiry = 24 * time.Hour

	// RefreshIntervalKey is how often a service replica reloads the
	// workload from a store it shares with other replicas (MySQL). A bare
	// number is milliseconds.
	RefreshIntervalKey = "slowpeer.hiveserver.refresh.interval"
	// DefaultSharedRefreshInterval is ten seconds: a statement another
	// replica started weighs on this replica's picks within that time.
	DefaultSharedRefreshInterval = 10 * time.Second

	// RetentionKey is how long the store keeps a statement after its last
	// event, and a HiveServer after its last event; the leader of the
	// service replicas (or the only one) deletes what is older. A bare
	// number is milliseconds.
	RetentionKey = "slowpeer.hiveserver.retention"
	// DefaultRetention is a week: long past QueryTimeout and
	// ServerExpiry, so pruning never changes a pick.
	DefaultRetention = 7 * 24 * time.Hour
)

// maxDuration keeps durations far from overflowing when added to times.
const maxDuration = 10 * 365 * 24 * time.Hour

// Config is the configuration of a Picker. Its zero value is not valid;
// start from DefaultConfig. A Config is a plain value, safe to copy.
type Config struct {
	// QueryTimeout mirrors slowpeer.hiveserver.query.timeout (default
	// 24h): a statement started longer ago and not ended is lost, not
	// running.
	QueryTimeout time.Duration
	// MinRemaining mirrors slowpeer.hiveserver.load.min.remaining (default
	// 1s): the floor of a running statement's expected remaining time.
	MinRemaining time.Duration
	// DefaultCost mirrors slowpeer.hiveserver.load.default (default 1m):
	// what a running statement without history (or without jobName)
	// counts for.
	DefaultCost time.Duration
	// ServerExpiry mirrors slowpeer.hiveserver.server.expiry (default
	// 24h): a HiveServer known only from its events is forgotten this long
	// after its last event unless it still runs statements.
	ServerExpiry time.Duration

	// RefreshInterval mirrors slowpeer.hiveserver.refresh.interval: how
	// often the workload is reloaded from the store, so that the events
	// other service replicas store in a shared MySQL store count here.
	// Zero (the default, right for SQLite) never reloads.
	RefreshInterval time.Duration
	// Retention mirrors slowpeer.hiveserver.retention (default 7d): the
	// store prunes statements and HiveServers whose last event is older;
	// zero keeps them forever. The picker itself does not read it.
	Retention time.Duration

	// Servers are HiveServers known whatever their events, "host:port"
	// (the -hiveservers flag).
	Servers []string
	// Sources are registries of HiveServers (today ZooKeeper's, through
	// discovery.Watcher) consulted at every pick and list.
	Sources []Source
	// KnownServersOnly refuses (403) the hook events of a HiveServer that
	// is neither in Servers nor in a Source, so that nobody can make a
	// host of their choosing known, and picked, by posting events for it.
	// The service sets it when it runs without a bearer token.
	KnownServersOnly bool

	// Logger receives the picker's events (statements found lost, store
	// errors); nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of the HTTP handlers; nil means time.Now. Tests set
	// it.
	Now func() time.Time
	// RandIntN returns a random int in [0, n) to break ties between equally
	// loaded HiveServers; it must be safe for concurrent use. Nil means
	// math/rand/v2.IntN. Tests set it.
	RandIntN func(n int) int
}

// DefaultConfig returns a Config with the defaults above, no static
// servers and no sources.
func DefaultConfig() Config {
	return Config{
		QueryTimeout: DefaultQueryTimeout,
		MinRemaining: DefaultMinRemaining,
		DefaultCost:  DefaultDefaultCost,
		ServerExpiry: DefaultServerExpiry,
		Retention:    DefaultRetention,
	}
}

// Validate returns an error naming the first broken rule, or nil.
func (c Config) Validate() error {
	durations := []struct {
		key string
		d   time.Duration
	}{
		{QueryTimeoutKey, c.QueryTimeout},
		{MinRemainingKey, c.MinRemaining},
		{DefaultCostKey, c.DefaultCost},
		{ServerExpiryKey, c.ServerExpiry},
	}
	for _, f := range durations {
		if f.d < time.Millisecond {
			return fmt.Errorf("%s must be at least 1ms, got %v", f.key, f.d)
		}
		if f.d > maxDuration {
			return fmt.Errorf("%s must be at most %v, got %v", f.key, maxDuration, f.d)
		}
	}
	if c.Retention < 0 || c.Retention > maxDuration {
		return fmt.Errorf("%s must be between 0 and %v, got %v", RetentionKey, maxDuration, c.Retention)
	}
	if c.RefreshInterval < 0 || c.RefreshInterval > maxDuration {
		return fmt.Errorf("%s must be between 0 and %v, got %v", RefreshIntervalKey, maxDuration, c.RefreshInterval)
	}
	for _, s := range c.Servers {
		if err := reports.ValidateNode(s); err != nil {
			return fmt.Errorf("hiveservers: %w", err)
		}
	}
	for i, s := range c.Sources {
		if s == nil {
			return fmt.Errorf("source %d is nil", i)
		}
	}
	return nil
}
