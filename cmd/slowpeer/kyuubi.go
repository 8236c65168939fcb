package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/slowpeer/slowpeer/discovery"
)

// kyuubiFlags is the etcd flag of "slowpeer namenode": where Kyuubi
// servers register themselves with kyuubi.ha.client.class =
// EtcdDiscoveryClient. They become pick targets, as the HiveServer2s of
// -hs2-zookeeper do, and are published with them under
// -hs2-publish-namespace.
type kyuubiFlags struct {
	etcd string
	tls  *tls.Config // from the keys (etcdTLS); nil: plain
}

func (f *kyuubiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.etcd, "kyuubi-etcd", "", "follow the Kyuubi servers registered in etcd at `etcd://[USER:PASSWORD@]H:P[,H:P]/NAMESPACE` (kyuubi.ha.addresses, kyuubi.ha.namespace; default namespace "+
		discovery.DefaultKyuubiNamespace+"; USER:PASSWORD, percent-encoded, an etcd user to read as)")
}

// check names the first bad flag.
func (f *kyuubiFlags) check() error {
	if f.etcd == "" {
		return nil
	}
	_, err := parseKyuubiEtcd(f.etcd)
	return err
}

// parseKyuubiEtcd reads etcd://[USER:PASSWORD@]H:P[,H:P]/NAMESPACE into a
// watcher's config: the endpoints, the namespace (DefaultKyuubiNamespace
// when the path is empty) and the etcd user. Its errors never show the
// password.
func parseKyuubiEtcd(s string) (discovery.EtcdWatcherConfig, error) {
	cfg := discovery.DefaultEtcdWatcherConfig()
	rest, ok := strings.CutPrefix(s, "etcd://")
	if !ok {
		return cfg, fmt.Errorf("-kyuubi-etcd: want etcd://H:P[,H:P]/NAMESPACE")
	}
	hosts, ns, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(hosts, "@"); at >= 0 {
		user, pass, err := discovery.ParseCredentials(hosts[:at])
		if err != nil {
			return cfg, fmt.Errorf("-kyuubi-etcd: %w", err)
		}
		cfg.Username, cfg.Password, hosts = user, pass, hosts[at+1:]
		s = "etcd://" + url.PathEscape(user) + ":xxxxx@" + hosts + "/" + ns // for the errors below
	}
	var endpoints []string
	for h := range strings.SplitSeq(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			return cfg, fmt.Errorf("-kyuubi-etcd %q: an empty etcd address", s)
		}
		if u, err := url.Parse("etcd://" + h); err != nil || u.Host != h || u.Port() == "" {
			return cfg, fmt.Errorf("-kyuubi-etcd %q: %q is not host:port", s, h)
		}
		endpoints = append(endpoints, h)
	}
	if strings.Trim(ns, "/") == "" {
		ns = discovery.DefaultKyuubiNamespace
	}
	cfg.Endpoints, cfg.Namespace = endpoints, ns
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("-kyuubi-etcd %q: %w", s, err)
	}
	return cfg, nil
}

// watcher returns the watcher of the Kyuubi servers in etcd, nil without
// -kyuubi-etcd; onChange is called after its set changed.
func (f *kyuubiFlags) watcher(log *slog.Logger, onChange func()) (*discovery.EtcdWatcher, error) {
	if f.etcd == "" {
		return nil, nil
	}
	cfg, err := parseKyuubiEtcd(f.etcd)
	if err != nil {
		return nil, err
	}
	cfg.Logger, cfg.OnChange, cfg.TLS = log, onChange, f.tls
	w, err := discovery.NewEtcdWatcher(cfg)
	if err != nil {
		return nil, fmt.Errorf("watch Kyuubi registrations in etcd: %w", err)
	}
	return w, nil
}
