package main

import (
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
}

func (f *kyuubiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.etcd, "kyuubi-etcd", "", "follow the Kyuubi servers registered in etcd at `etcd://H:P[,H:P]/NAMESPACE` (kyuubi.ha.addresses, kyuubi.ha.namespace; default namespace "+discovery.DefaultKyuubiNamespace+")")
}

// check names the first bad flag.
func (f *kyuubiFlags) check() error {
	if f.etcd == "" {
		return nil
	}
	_, _, err := parseKyuubiEtcd(f.etcd)
	return err
}

// parseKyuubiEtcd reads etcd://H:P[,H:P]/NAMESPACE into the endpoints and
// the namespace (DefaultKyuubiNamespace when the path is empty).
func parseKyuubiEtcd(s string) (endpoints []string, namespace string, err error) {
	rest, ok := strings.CutPrefix(s, "etcd://")
	if !ok {
		return nil, "", fmt.Errorf("-kyuubi-etcd %q: want etcd://H:P[,H:P]/NAMESPACE", s)
	}
	hosts, ns, _ := strings.Cut(rest, "/")
	for h := range strings.SplitSeq(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			return nil, "", fmt.Errorf("-kyuubi-etcd %q: an empty etcd address", s)
		}
		if u, err := url.Parse("etcd://" + h); err != nil || u.Host != h || u.Port() == "" {
			return nil, "", fmt.Errorf("-kyuubi-etcd %q: %q is not host:port", s, h)
		}
		endpoints = append(endpoints, h)
	}
	if strings.Trim(ns, "/") == "" {
		ns = discovery.DefaultKyuubiNamespace
	}
	cfg := discovery.DefaultEtcdWatcherConfig()
	cfg.Endpoints, cfg.Namespace = endpoints, ns
	if err := cfg.Validate(); err != nil {
		return nil, "", fmt.Errorf("-kyuubi-etcd %q: %w", s, err)
	}
	return endpoints, ns, nil
}

// watcher returns the watcher of the Kyuubi servers in etcd, nil without
// -kyuubi-etcd; onChange is called after its set changed.
func (f *kyuubiFlags) watcher(log *slog.Logger, onChange func()) (*discovery.EtcdWatcher, error) {
	if f.etcd == "" {
		return nil, nil
	}
	endpoints, ns, err := parseKyuubiEtcd(f.etcd)
	if err != nil {
		return nil, err
	}
	cfg := discovery.DefaultEtcdWatcherConfig()
	cfg.Endpoints, cfg.Namespace, cfg.Logger, cfg.OnChange = endpoints, ns, log, onChange
	w, err := discovery.NewEtcdWatcher(cfg)
	if err != nil {
		return nil, fmt.Errorf("watch Kyuubi registrations in etcd: %w", err)
	}
	return w, nil
}
