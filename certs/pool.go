package certs

import (
	"crypto/x509"
	"fmt"
	"os"
	"sync/atomic"
)

// Pool is a bundle of CA certificates read from one PEM file, the
// -tls-ca or -tls-client-ca of a daemon. It is safe for concurrent use;
// build it with LoadPool.
type Pool struct {
	file string
	cur  atomic.Pointer[x509.CertPool]
}

// LoadPool reads file, which must hold at least one PEM certificate.
func LoadPool(file string) (*Pool, error) {
	p := &Pool{file: file}
	if err := p.Reload(); err != nil {
		return nil, err
	}
	return p, nil
}

// Reload reads the file again and uses its certificates from now on. On an
// error it keeps the certificates it had.
func (p *Pool) Reload() error {
	data, err := os.ReadFile(p.file)
	if err != nil {
		return fmt.Errorf("read CA certificates: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return fmt.Errorf("read CA certificates: %s holds no PEM certificate", p.file)
	}
	p.cur.Store(pool)
	return nil
}

// CertPool returns the certificates in use. The caller must not modify it.
func (p *Pool) CertPool() *x509.CertPool { return p.cur.Load() }
