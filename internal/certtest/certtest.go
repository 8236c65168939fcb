// Package certtest makes a certificate authority and certificates signed
// by it at test time, with crypto/x509, so that tests of TLS and mutual
// TLS need no files in the repository and no outside tool.
package certtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test: a self-signed ECDSA
// P-256 certificate valid for a day. It is safe for concurrent use.
type CA struct {
	// Cert is the CA's certificate.
	Cert *x509.Certificate
	// PEM is Cert in PEM, what a -tls-ca or -tls-client-ca file holds.
	PEM []byte
	key *ecdsa.PrivateKey
}

// NewCA makes a CA named name; it fails t on an error.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("certtest: create CA %s: %v", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("certtest: parse CA %s: %v", name, err)
	}
	return &CA{Cert: cert, PEM: pemBlock("CERTIFICATE", der), key: key}
}

// Issue returns a certificate and its key, both in PEM, for the common
// name cn and the hosts (DNS names or IP addresses), good for server and
// client authentication and valid for a day.
func (ca *CA) Issue(t testing.TB, cn string, hosts ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatalf("certtest: issue %s: %v", cn, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("certtest: marshal key of %s: %v", cn, err)
	}
	return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", keyDER)
}

// WriteCA writes the CA's certificate to dir/name and returns the path.
func (ca *CA) WriteCA(t testing.TB, dir, name string) string {
	t.Helper()
	return write(t, filepath.Join(dir, name), ca.PEM)
}

// WritePair issues a certificate as Issue does and writes it and its key
// to dir/name.crt and dir/name.key, replacing what was there.
func (ca *CA) WritePair(t testing.TB, dir, name, cn string, hosts ...string) (certFile, keyFile string) {
	t.Helper()
	c, k := ca.Issue(t, cn, hosts...)
	return write(t, filepath.Join(dir, name+".crt"), c), write(t, filepath.Join(dir, name+".key"), k)
}

func write(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatalf("certtest: %v", err)
	}
	return path
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("certtest: generate key: %v", err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		t.Fatalf("certtest: serial number: %v", err)
	}
	return n
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
