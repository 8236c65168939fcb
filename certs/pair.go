package certs

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// Pair is a certificate chain and its private key read from two PEM files,
// the -tls-cert and -tls-key of a daemon. It is safe for concurrent use;
// build it with LoadPair.
type Pair struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

// LoadPair reads certFile (the certificate, then any intermediates) and
// keyFile (its private key), both PEM.
func LoadPair(certFile, keyFile string) (*Pair, error) {
	p := &Pair{certFile: certFile, keyFile: keyFile}
	if err := p.Reload(); err != nil {
		return nil, err
	}
	return p, nil
}

// Reload reads the two files again and, when they hold a matching
// certificate and key, uses them for every handshake from now on. On an
// error it keeps the pair it had.
func (p *Pair) Reload() error {
	certPEM, err := os.ReadFile(p.certFile)
	if err != nil {
		return fmt.Errorf("read TLS certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(p.keyFile)
	if err != nil {
		return fmt.Errorf("read TLS key: %w", err)
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("load TLS pair %s, %s: %w", p.certFile, p.keyFile, err)
	}
	p.cur.Store(&c)
	return nil
}

// Certificate returns the pair in use.
func (p *Pair) Certificate() *tls.Certificate { return p.cur.Load() }

// Leaf returns the pair's own certificate (the first of the chain).
func (p *Pair) Leaf() *x509.Certificate { return p.cur.Load().Leaf }

// Describe returns the subject, serial number and expiry of the pair's
// certificate, for a log line.
func (p *Pair) Describe() string {
	l := p.Leaf()
	return fmt.Sprintf("%s (serial %x, expires %s)", l.Subject, l.SerialNumber, l.NotAfter.UTC().Format(time.RFC3339))
}

// GetCertificate is a tls.Config.GetCertificate: the pair in use.
func (p *Pair) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return p.cur.Load(), nil
}

// GetClientCertificate is a tls.Config.GetClientCertificate: the pair in
// use, whatever the server asks for (a server that does not trust its CA
// refuses the handshake and says so).
func (p *Pair) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return p.cur.Load(), nil
}
