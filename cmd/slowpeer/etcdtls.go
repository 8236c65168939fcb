package main

import (
	"crypto/tls"
	"fmt"

	"github.com/slowpeer/slowpeer/certs"
	"github.com/slowpeer/slowpeer/discovery"
)

// etcdTLSKeys are the keys of the TLS of every etcd client of a command:
// -registry etcd://, -kyuubi-etcd, -namenode etcd://.
var etcdTLSKeys = keys[discovery.EtcdTLS]{
	{name: discovery.EtcdSSLEnabledKey, unit: boolean,
		field: func(c *discovery.EtcdTLS) any { return &c.Enabled }},
	{name: discovery.EtcdSSLCAKey, unit: text, note: "none: the system's roots",
		field: func(c *discovery.EtcdTLS) any { return &c.CAFile }},
	{name: discovery.EtcdSSLClientCert, unit: text, note: "none",
		field: func(c *discovery.EtcdTLS) any { return &c.CertFile }},
	{name: discovery.EtcdSSLClientKey, unit: text, note: "none",
		field: func(c *discovery.EtcdTLS) any { return &c.KeyFile }},
}

// etcdTLS reads the etcd TLS keys of conf and loads their files: the
// config of the etcd clients (nil: plain) and what SIGHUP re-reads (the
// client certificate; the CAs are read at start only, as -tls-ca's).
func etcdTLS(conf hadoopConf) (*tls.Config, []reloadable, error) {
	var c discovery.EtcdTLS
	if err := etcdTLSKeys.apply(conf, &c); err != nil {
		return nil, nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, nil, fmt.Errorf("configuration: %w", err)
	}
	if !c.Enabled {
		return nil, nil, nil
	}
	var roots *certs.Pool
	var err error
	var re []reloadable
	if c.CAFile != "" {
		if roots, err = certs.LoadPool(c.CAFile); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", discovery.EtcdSSLCAKey, err)
		}
	}
	var pair *certs.Pair
	if c.CertFile != "" {
		if pair, err = loadPair(discovery.EtcdSSLClientCert, c.CertFile, discovery.EtcdSSLClientKey, c.KeyFile); err != nil {
			return nil, nil, err
		}
		re = append(re, pairReloadable(pair))
	}
	return certs.ClientConfig(roots, pair), re, nil
}

// etcdTLSOf is etcdTLS of what -conf and -D of a one-shot command say.
func etcdTLSOf(c confFlags) (*tls.Config, error) {
	conf, err := c.load()
	if err != nil {
		return nil, err
	}
	cfg, _, err := etcdTLS(conf)
	return cfg, err
}
