package certs

import (
	"crypto/tls"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/internal/certtest"
)

// serve serves HTTPS with cfg on loopback until the test ends; the
// handler answers the serial number of the client's certificate, if any.
func serve(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			io.WriteString(w, r.TLS.PeerCertificates[0].SerialNumber.String())
			return
		}
		io.WriteString(w, "anonymous")
	}), ErrorLog: discardLog()}
	go srv.Serve(tls.NewListener(ln, cfg))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// client returns a client of its own (its own connections) with cfg.
func client(t *testing.T, cfg *tls.Config) *http.Client {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// get returns the body, the server certificate's serial number and
// whether the connection was reused.
func get(c *http.Client, url string) (body string, serverSerial *big.Int, reused bool, err error) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	}))
	resp, err := c.Do(req)
	if err != nil {
		return "", nil, false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.TLS != nil {
		serverSerial = resp.TLS.PeerCertificates[0].SerialNumber
	}
	return string(b), serverSerial, reused, err
}

func TestServerAndClient(t *testing.T) {
	dir := t.TempDir()
	ca := certtest.NewCA(t, "test CA")
	other := certtest.NewCA(t, "other CA")
	roots, err := LoadPool(ca.WriteCA(t, dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pair, err := LoadPair(ca.WritePair(t, dir, "server", "nn1", "127.0.0.1", "localhost"))
	if err != nil {
		t.Fatal(err)
	}
	clientPair, err := LoadPair(ca.WritePair(t, dir, "client", "dn1"))
	if err != nil {
		t.Fatal(err)
	}
	strangerPair, err := LoadPair(other.WritePair(t, dir, "stranger", "dn2"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("https", func(t *testing.T) {
		addr := serve(t, ServerConfig(pair, nil))
		body, serial, _, err := get(client(t, ClientConfig(roots, nil)), "https://"+addr+"/")
		if err != nil || body != "anonymous" || serial.Cmp(pair.Leaf().SerialNumber) != 0 {
			t.Fatalf("GET: %q %v %v", body, serial, err)
		}
		// A client that does not trust the CA refuses the server.
		if _, _, _, err := get(client(t, ClientConfig(nil, nil)), "https://"+addr+"/"); err == nil ||
			!strings.Contains(err.Error(), "certificate") {
			t.Fatalf("GET trusting the system roots only: %v, want a certificate error", err)
		}
		// Plain HTTP gets net/http's 400 and no handler runs.
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || strings.Contains(string(b), "anonymous") {
			t.Fatalf("plain HTTP: %s %q", resp.Status, b)
		}
	})

	t.Run("mutual", func(t *testing.T) {
		addr := serve(t, ServerConfig(pair, roots))
		if _, _, _, err := get(client(t, ClientConfig(roots, nil)), "https://"+addr+"/"); err == nil {
			t.Fatal("a client without a certificate got an answer")
		}
		if _, _, _, err := get(client(t, ClientConfig(roots, strangerPair)), "https://"+addr+"/"); err == nil {
			t.Fatal("a client with a certificate of another CA got an answer")
		}
		body, _, _, err := get(client(t, ClientConfig(roots, clientPair)), "https://"+addr+"/")
		if err != nil || body != clientPair.Leaf().SerialNumber.String() {
			t.Fatalf("GET with a client certificate: %q %v", body, err)
		}
	})
}

// Reload swaps the certificate while a keep-alive connection keeps
// working with the old one; new handshakes see the new one, on both sides.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	ca := certtest.NewCA(t, "test CA")
	roots, _ := LoadPool(ca.WriteCA(t, dir, "ca.pem"))
	pair, err := LoadPair(ca.WritePair(t, dir, "server", "nn1", "127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	clientPair, err := LoadPair(ca.WritePair(t, dir, "client", "dn1"))
	if err != nil {
		t.Fatal(err)
	}
	url := "https://" + serve(t, ServerConfig(pair, roots)) + "/"
	old, oldClient := pair.Leaf().SerialNumber, clientPair.Leaf().SerialNumber
	kept := client(t, ClientConfig(roots, clientPair))
	if body, serial, _, err := get(kept, url); err != nil || serial.Cmp(old) != 0 || body != oldClient.String() {
		t.Fatalf("first GET: %q %v %v", body, serial, err)
	}

	ca.WritePair(t, dir, "server", "nn1", "127.0.0.1")
	ca.WritePair(t, dir, "client", "dn1")
	if err := pair.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := clientPair.Reload(); err != nil {
		t.Fatal(err)
	}
	if pair.Leaf().SerialNumber.Cmp(old) == 0 || clientPair.Leaf().SerialNumber.Cmp(oldClient) == 0 {
		t.Fatal("Reload kept the old certificates")
	}
	body, serial, reused, err := get(kept, url)
	if err != nil || !reused || serial.Cmp(old) != 0 || body != oldClient.String() {
		t.Fatalf("GET on the kept connection: %q, serial %v, reused %v, %v; want the old certificates on a reused connection",
			body, serial, reused, err)
	}
	body, serial, reused, err = get(client(t, ClientConfig(roots, clientPair)), url)
	if err != nil || reused || serial.Cmp(pair.Leaf().SerialNumber) != 0 || body != clientPair.Leaf().SerialNumber.String() {
		t.Fatalf("GET on a new connection: %q, serial %v, reused %v, %v; want the new certificates", body, serial, reused, err)
	}

	// A broken file is an error, and the pair in use stays.
	cur := pair.Leaf().SerialNumber
	os.WriteFile(dir+"/server.key", []byte("not a key"), 0o600)
	if err := pair.Reload(); err == nil {
		t.Fatal("Reload of a broken key: no error")
	}
	if pair.Leaf().SerialNumber.Cmp(cur) != 0 {
		t.Fatal("a failed Reload changed the pair")
	}
	os.WriteFile(dir+"/ca.pem", []byte("no PEM here"), 0o600)
	if err := roots.Reload(); err == nil || roots.CertPool() == nil {
		t.Fatalf("Reload of a CA file without certificates: %v, pool %v", err, roots.CertPool())
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadPair(dir+"/missing.crt", dir+"/missing.key"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadPair of missing files: %v", err)
	}
	if _, err := LoadPool(dir + "/missing.pem"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadPool of a missing file: %v", err)
	}
	ca := certtest.NewCA(t, "a")
	crt, _ := ca.WritePair(t, dir, "one", "x")
	_, key := ca.WritePair(t, dir, "two", "y")
	if _, err := LoadPair(crt, key); err == nil || !strings.Contains(err.Error(), "load TLS pair") {
		t.Fatalf("LoadPair of a certificate with another key: %v", err)
	}
}

// discardLog silences the handshake errors of the clients refused.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
