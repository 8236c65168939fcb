package discovery

import "errors"

// The keys of the TLS of slowpeer's etcd clients (-registry etcd://,
// -kyuubi-etcd, -namenode etcd://): Kyuubi's kyuubi.ha.etcd.ssl.* keys
// (HighAvailabilityConf), under slowpeer.registry, with the same meaning,
// so a Kyuubi deployment's four settings carry over.
const (
	EtcdSSLEnabledKey = "slowpeer.registry.etcd.ssl.enabled"
	EtcdSSLCAKey      = "slowpeer.registry.etcd.ssl.ca.path"
	EtcdSSLClientCert = "slowpeer.registry.etcd.ssl.client.certificate.path"
	EtcdSSLClientKey  = "slowpeer.registry.etcd.ssl.client.key.path"
)

// EtcdTLS says how an etcd client speaks TLS: the files, which the
// command reads (package certs). The zero EtcdTLS is plain, as Kyuubi's
// default. A plain value, safe to copy.
type EtcdTLS struct {
	// Enabled turns TLS on (EtcdSSLEnabledKey, default false): every etcd
	// server is reached over TLS, verified against CAFile.
	Enabled bool
	// CAFile holds the CAs of the etcd servers' certificates in PEM
	// (EtcdSSLCAKey); empty: the system's roots.
	CAFile string
	// CertFile and KeyFile are the client certificate and key in PEM
	// (EtcdSSLClientCert, EtcdSSLClientKey), for an etcd with
	// --client-cert-auth; both or neither.
	CertFile, KeyFile string
}

// Validate returns an error naming the first broken rule, or nil.
func (c EtcdTLS) Validate() error {
	switch {
	case !c.Enabled && (c.CAFile != "" || c.CertFile != "" || c.KeyFile != ""):
		return errors.New(EtcdSSLEnabledKey + " is false, yet a file of " + "slowpeer.registry.etcd.ssl.* is set: set it true, or remove the file")
	case (c.CertFile == "") != (c.KeyFile == ""):
		return errors.New(EtcdSSLClientCert + " and " + EtcdSSLClientKey + " go together")
	}
	return nil
}
