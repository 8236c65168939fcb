package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/certtest"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// OwnEtcd is an etcd of one test's own, which the test may kill, freeze
// (SIGSTOP: connections stay open and nothing answers, as in a
// partition) and start again on the same data. scripts/services starts
// the shared one the same way.
type OwnEtcd struct {
	// Addr is its client address, host:port on loopback.
	Addr string
	// Dir is its directory: data, log, and the TLS files when it has them.
	Dir string

	t      testing.TB
	bin    string
	peer   string
	flags  []string // the TLS flags, if any
	tls    *tls.Config
	cmd    *exec.Cmd
	exited chan struct{}
}

// EtcdTLS are the files of an etcd that serves its clients over TLS and
// asks them for a certificate signed by CA (mutual TLS, etcd's
// --client-cert-auth).
type EtcdTLS struct {
	// CertFile and KeyFile are the server's certificate and key.
	CertFile, KeyFile string
	// CAFile holds the CA of the clients' certificates, and of the
	// server's.
	CAFile string
	// ClientCertFile and ClientKeyFile are a client certificate the
	// server takes.
	ClientCertFile, ClientKeyFile string
	// Client is what the test's own client presents and trusts.
	Client *tls.Config
}

// NewEtcdTLS makes a CA for the test and, signed by it, the certificate
// of an etcd on 127.0.0.1 and one of a client, in a directory of the
// test's own.
func NewEtcdTLS(t testing.TB) *EtcdTLS {
	t.Helper()
	dir := t.TempDir()
	ca := certtest.NewCA(t, "etcd test CA")
	e := &EtcdTLS{CAFile: ca.WriteCA(t, dir, "ca.pem")}
	e.CertFile, e.KeyFile = ca.WritePair(t, dir, "server", "etcd", "127.0.0.1", "localhost")
	e.ClientCertFile, e.ClientKeyFile = ca.WritePair(t, dir, "client", "slowpeer")
	pair, err := tls.LoadX509KeyPair(e.ClientCertFile, e.ClientKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	e.Client = &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	return e
}

// StartEtcd starts an etcd of the test's own on loopback, over TLS when
// tlsFiles is set, waits until it answers, and kills it at the end of the
// test. It calls Missing when the etcd program is not installed.
func StartEtcd(t testing.TB, tlsFiles *EtcdTLS) *OwnEtcd {
	t.Helper()
	e := &OwnEtcd{t: t, bin: Command(t, "etcd"), Dir: t.TempDir(), Addr: freePort(t), peer: freePort(t)}
	scheme := "http://"
	if tlsFiles != nil {
		scheme = "https://"
		e.tls = tlsFiles.Client
		e.flags = []string{"--cert-file", tlsFiles.CertFile, "--key-file", tlsFiles.KeyFile,
			"--trusted-ca-file", tlsFiles.CAFile, "--client-cert-auth"}
	}
	e.flags = append(e.flags, "--listen-client-urls", scheme+e.Addr, "--advertise-client-urls", scheme+e.Addr)
	e.Start()
	t.Cleanup(e.Kill)
	return e
}

func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Start starts etcd again, on the same data, and waits until it answers.
func (e *OwnEtcd) Start() {
	e.t.Helper()
	log, err := os.OpenFile(filepath.Join(e.Dir, "etcd.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	args := append([]string{"--name", "own", "--data-dir", filepath.Join(e.Dir, "data"),
		"--listen-peer-urls", "http://" + e.peer, "--initial-advertise-peer-urls", "http://" + e.peer,
		"--initial-cluster", "own=http://" + e.peer}, e.flags...)
	e.cmd = exec.Command(e.bin, args...)
	e.cmd.Stdout, e.cmd.Stderr = log, log
	if err := e.cmd.Start(); err != nil {
		log.Close()
		e.t.Fatalf("start etcd: %v", err)
	}
	e.exited = make(chan struct{})
	go func() { e.cmd.Wait(); log.Close(); close(e.exited) }()
	c := e.Client()
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Get(ctx, "health")
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(e.Dir, "etcd.log"))
			e.t.Fatalf("own etcd not up within 30s: %v\n%s", err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Client returns a new client of this etcd; the caller closes it.
func (e *OwnEtcd) Client() *clientv3.Client {
	e.t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Addr}, DialTimeout: 5 * time.Second,
		Logger: zap.NewNop(), TLS: e.tls})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// Kill ends etcd with SIGKILL, if it runs (a frozen one too).
func (e *OwnEtcd) Kill() {
	select {
	case <-e.exited:
		return
	default:
	}
	e.cmd.Process.Kill()
	<-e.exited
}

// Freeze stops etcd with SIGSTOP: its connections stay open, nothing
// answers. Thaw lets it run again.
func (e *OwnEtcd) Freeze() { e.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw lets a frozen etcd run again (SIGCONT).
func (e *OwnEtcd) Thaw() { e.cmd.Process.Signal(syscall.SIGCONT) }
