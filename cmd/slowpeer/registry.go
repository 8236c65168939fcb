package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"

	"github.com/slowpeer/slowpeer/discovery"
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
