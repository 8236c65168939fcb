package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slowpeer/slowpeer/discovery"
	"github.com/slowpeer/slowpeer/hiveserver/sqlstore"
	"github.com/slowpeer/slowpeer/namenode"
)

// registryKeys are the keys of a service replica's registration.
var registryKeys = keys[discovery.ReplicaConfig]{
	{name: discovery.RegistryTimeoutKey, unit: millis,
		field: func(c *discovery.ReplicaConfig) any { return &c.Timeout }},
}

// ClusterPath is the route of what a replica knows of the others.
const ClusterPath = "/v1/cluster"

// registryFlags are the -registry and -advertise flags of "slowpeer
// namenode".
type registryFlags struct {
	url       string
	advertise string
	tls       *tls.Config // etcd's, from the keys (etcdTLS); nil: plain
}

func (f *registryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "registry", "", "register in `zk://H:P[,H:P]/ROOT or etcd://H:P[,H:P]/ROOT` and elect a leader among the replicas (ROOT default "+discovery.DefaultRoot+
		"); zk://USER:PASSWORD@... authenticates with a ZooKeeper digest (znodes readable by all, writable by USER), etcd://USER:PASSWORD@... as an etcd user")
	fs.StringVar(&f.advertise, "advertise", "", "`HOST:PORT` the other replicas, agents and clients reach this one at (default: the -listen address, when it names a host)")
}

// check parses -registry; it returns a zero URL without it.
func (f *registryFlags) check() (discovery.RegistryURL, error) {
	if f.url == "" {
		if f.advertise != "" {
			return discovery.RegistryURL{}, errors.New("-advertise needs -registry")
		}
		return discovery.RegistryURL{}, nil
	}
	u, err := discovery.ParseRegistryURL(f.url)
	if err != nil {
		return u, fmt.Errorf("-registry: %w", err)
	}
	u.TLS = f.tls
	return u, nil
}

// advertised is the address to register: -advertise, else the address
// the service listens on when it names a host.
func (f *registryFlags) advertised(ln net.Listener) (string, error) {
	if f.advertise != "" {
		return f.advertise, nil
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		return "", fmt.Errorf("-registry: -listen %s names no host: give -advertise HOST:PORT", ln.Addr())
	}
	return ln.Addr().String(), nil
}

// replicaConfig is the registration of the replica reached at advertise
// with scheme ("http", or "https" when it serves TLS).
func replicaConfig(u discovery.RegistryURL, advertise, scheme string, conf hadoopConf, log *slog.Logger) (discovery.ReplicaConfig, error) {
	cfg := discovery.DefaultReplicaConfig()
	if err := registryKeys.apply(conf, &cfg); err != nil {
		return cfg, err
	}
	version := devVersion
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	cfg.Registry, cfg.Logger = u, log
	cfg.Self = discovery.Member{Server: advertise, Scheme: scheme, Version: version}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("-registry: %w", err)
	}
	return cfg, nil
}

// leaderWork is what one replica alone does, the leader with -registry,
// else the only one: migrate the schema of a shared hook event store
// (with reload set; a lone service's store is migrated when opened),
// then publish the balanced HiveServer2 namespace (a new publisher each
// term) and prune the store. leading guards every write.
type leaderWork struct {
	hs2          *hs2Flags
	registration func(server string) (discovery.Registration, bool) // what the watchers know
	eligible     func() []string
	store        *sqlstore.Store
	retention    time.Duration
	leading      func() bool // nil: always
	log          *slog.Logger
	// reload, when set, makes the term start with the store's
	// migration, then is called (the picker's Refresh) so that this
	// replica serves at once rather than at its picker's next try.
	reload func(ctx context.Context) error

	publisher atomic.Pointer[discovery.Publisher] // the running term's
}

// notify tells the running publisher, if any, that the pick may have
// changed.
func (w *leaderWork) notify() {
	if p := w.publisher.Load(); p != nil {
		p.Notify()
	}
}

// pruneEvery is how often the leader prunes the store.
const pruneEvery = time.Hour

func (w *leaderWork) run(ctx context.Context) error {
	if err := w.migrate(ctx); err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	pub, err := w.hs2.publisher(w.log, w.eligible, w.registration, w.leading)
	if err != nil {
		return err
	}
	if pub != nil {
		w.publisher.Store(pub)
		defer w.publisher.CompareAndSwap(pub, nil)
		wg.Go(func() {
			if err := pub.Run(ctx); err != nil {
				// Stopping: the znodes go with the session anyway.
				w.log.Warn("unpublish HiveServers", slog.Any("err", err))
			}
		})
	}
	tick := time.NewTicker(pruneEvery)
	defer tick.Stop()
	for {
		if w.retention > 0 && (w.leading == nil || w.leading()) {
			before := time.Now().Add(-w.retention)
			if n, err := w.store.Prune(ctx, before); err != nil && ctx.Err() == nil {
				w.log.Warn("prune the hook event store", slog.Any("err", err))
			} else if n > 0 {
				w.log.Info("pruned the hook event store", slog.Int64("rows", n), slog.Time("before", before))
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// migrate migrates the store's schema when the term starts with it. An
// error ends the term's work (the replica tries again a second later);
// a schema newer than this binary knows is such an error, which the
// picker reports too.
func (w *leaderWork) migrate(ctx context.Context) error {
	if w.reload == nil || (w.leading != nil && !w.leading()) {
		return nil
	}
	have, want, err := w.store.SchemaVersion(ctx)
	if err == nil && have == want {
		return nil // the usual start: nothing to do, nothing to say
	}
	start := time.Now()
	if err := w.store.Migrate(ctx); err != nil {
		return fmt.Errorf("leader: %w", err)
	}
	w.log.Info("leader migrated the hive event store's schema", slog.String("store", w.store.String()),
		slog.Int("from", have), slog.Int("to", want), slog.Duration("took", time.Since(start).Round(time.Millisecond)))
	if err := w.reload(ctx); err != nil && ctx.Err() == nil {
		w.log.Warn("load the HiveServer workload after the migration", slog.Any("err", err))
	}
	return nil
}

// clusterHandler serves GET /v1/cluster: what replica knows, or, without
// a registry (replica nil), this lone service leading itself.
func clusterHandler(replica *discovery.Replica, self string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		type answer struct {
			Self     string   `json:"self"`
			Leader   *string  `json:"leader"`
			Replicas []string `json:"replicas"`
			Registry *string  `json:"registry"`
		}
		a := answer{Self: self, Leader: &self, Replicas: []string{self}}
		if replica != nil {
			c := replica.Cluster()
			a = answer{Self: c.Self, Replicas: c.Replicas, Registry: &c.Registry}
			if c.Leader != "" {
				a.Leader = &c.Leader
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a)
	})
}

// mountCluster adds GET and HEAD /v1/cluster to srv.
func mountCluster(srv *namenode.Server, replica *discovery.Replica, self string) {
	h := clusterHandler(replica, self)
	srv.Handle(http.MethodGet, ClusterPath, h)
	srv.Handle(http.MethodHead, ClusterPath, h)
}
