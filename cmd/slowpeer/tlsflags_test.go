package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/internal/certtest"
)

// tlsFiles are a CA and the files of a service and a client it signed.
type tlsFiles struct {
	dir, ca               string
	serverCert, serverKey string
	clientCert, clientKey string
	authority             *certtest.CA
}

func newTLSFiles(t *testing.T) tlsFiles {
	t.Helper()
	dir := t.TempDir()
	ca := certtest.NewCA(t, "slowpeer test CA")
	f := tlsFiles{dir: dir, ca: ca.WriteCA(t, dir, "ca.pem"), authority: ca}
	f.serverCert, f.serverKey = ca.WritePair(t, dir, "nn", "nn1", "127.0.0.1")
	f.clientCert, f.clientKey = ca.WritePair(t, dir, "dn", "dn1")
	return f
}

func TestTLSFlagErrors(t *testing.T) {
	f := newTLSFiles(t)
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("t\n"), 0o600)
	check := func(args []string, want string) {
		t.Helper()
		code, out, errs := runCmd(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errs, want) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errs, want)
		}
	}
	nn := []string{"namenode", "-listen", "127.0.0.1:0", "-conf", t.TempDir()}
	with := func(base []string, extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	check(with(nn, "-tls-cert", f.serverCert), "-tls-cert and -tls-key go together")
	check(with(nn, "-tls-client-ca", f.ca), "-tls-client-ca needs -tls-cert and -tls-key")
	check(with(nn, "-tls-cert", f.serverCert, "-tls-key", f.clientKey), "-tls-cert: load TLS pair")
	check(with(nn, "-tls-cert", f.serverCert, "-tls-key", f.serverKey, "-tls-client-ca", f.serverKey), "-tls-client-ca: read CA certificates")
	check(with(nn, "-auth-reads"), "-auth-reads needs -auth-token-file")
	dn := []string{"datanode", "-id", "127.0.0.1:9866", "-namenode", "https://127.0.0.1:1", "-conf", t.TempDir()}
	check(with(dn, "-tls-ca", filepath.Join(f.dir, "missing.pem")), "-tls-ca: read CA certificates")
	check(with(dn, "-tls-key", f.clientKey), "-tls-cert and -tls-key go together")
	check([]string{"report", "-namenode", "https://127.0.0.1:1", "-tls-ca", f.serverKey}, "holds no PEM certificate")
	check([]string{"hiveserver", "pick", "-namenode", "https://127.0.0.1:1", "-tls-cert", f.clientCert}, "go together")
}
