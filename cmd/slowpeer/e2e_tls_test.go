//go:build e2e

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/certs"
)

// HTTPS only, with mutual TLS: "report" and "hiveserver pick" with the
// client flags get through, without a client certificate or over plain
// HTTP they do not, and an agent with the flags delivers its heartbeats.
func TestNamenodeTLS(t *testing.T) {
	f := newTLSFiles(t)
	addr, _ := startNamenode(t, "-tls-cert", f.serverCert, "-tls-key", f.serverKey, "-tls-client-ca", f.ca,
		"-hiveservers", "hs1.example.com:10000")
	base := "https://" + addr
	mtls := []string{"-tls-ca", f.ca, "-tls-cert", f.clientCert, "-tls-key", f.clientKey}

	if code, out, errs := runCmd(t, "", append([]string{"report", "-namenode", base, "-json"}, mtls...)...); code != 0 || out != "[]\n" {
		t.Fatalf("report over mutual TLS: exit %d, %q %s", code, out, errs)
	}
	if code, out, errs := runCmd(t, "", append([]string{"hiveserver", "pick", "-namenode", base}, mtls...)...); code != 0 || out != "hs1.example.com:10000\n" {
		t.Fatalf("pick over mutual TLS: exit %d, %q %s", code, out, errs)
	}
	// Under TLS 1.3 the server refuses after the client thinks the
	// handshake done, so the client's error varies (certificate required,
	// broken pipe, no HTTP/2 connection); it never gets an answer.
	if code, out, errs := runCmd(t, "", "report", "-namenode", base, "-tls-ca", f.ca); code != 1 || out != "" {
		t.Fatalf("report without a client certificate: exit %d, %q %s", code, out, errs)
	}
	if code, _, errs := runCmd(t, "", "report", "-namenode", base); code != 1 || !strings.Contains(errs, "certificate") {
		t.Fatalf("report trusting only the system's roots: exit %d, %s", code, errs)
	}
	if code, _, errs := runCmd(t, "", "report", "-namenode", "http://"+addr); code != 1 || !strings.Contains(errs, "400") {
		t.Fatalf("report over plain HTTP: exit %d, %s", code, errs)
	}

	// An agent with the client flags.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var agentLog bytes.Buffer
	go func() {
		done <- run(ctx, append([]string{"datanode", "-id", "127.0.0.1:9", "-namenode", base, "-hadoop-jmx", "http://127.0.0.1:1/jmx",
			"-conf", t.TempDir(), "-D", "dfs.heartbeat.interval=100ms", "-D", "slowpeer.heartbeat.max.backoff=200ms"}, mtls...),
			strings.NewReader(""), io.Discard, &agentLog)
	}()
	c := mtlsClient(t, f)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var dn []struct{ Node, State string }
		if err := getJSON(c, base+"/v1/datanodes", &dn); err != nil {
			t.Fatal(err)
		}
		if len(dn) == 1 && dn[0].Node == "127.0.0.1:9" && dn[0].State == "live" {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("no heartbeat over mutual TLS in 20 s; /v1/datanodes %v; agent log:\n%s", dn, agentLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("agent exited %d", code)
	}
}

// SIGHUP re-reads the service's certificate: a keep-alive connection
// opened before goes on with the old one, a new handshake gets the new
// one, and nothing restarts.
func TestNamenodeTLSReloadOnSIGHUP(t *testing.T) {
	// While the test runs, SIGHUP reaches this channel too, so that a
	// signal arriving after the service stopped cannot end the process.
	guard := make(chan os.Signal, 4)
	signal.Notify(guard, syscall.SIGHUP)
	defer signal.Stop(guard)

	f := newTLSFiles(t)
	addr, stop := startNamenode(t, "-tls-cert", f.serverCert, "-tls-key", f.serverKey)
	url := "https://" + addr + "/v1/datanodes"
	roots, err := certs.LoadPool(f.ca)
	if err != nil {
		t.Fatal(err)
	}
	newClient := func() *http.Client {
		tr := &http.Transport{TLSClientConfig: certs.ClientConfig(roots, nil)}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	kept := newClient()
	oldSerial, reused := serverSerial(t, kept, url)
	if reused {
		t.Fatal("the first request reused a connection")
	}

	f.authority.WritePair(t, f.dir, "nn", "nn1", "127.0.0.1") // same files, new certificate
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var newSerial *big.Int
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, _ := serverSerial(t, newClient(), url)
		if s.Cmp(oldSerial) != 0 {
			newSerial = s
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("new handshakes still see the old certificate 10 s after SIGHUP")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s, reused := serverSerial(t, kept, url); !reused || s.Cmp(oldSerial) != 0 {
		t.Fatalf("the kept connection: reused %v, serial %v; want the old connection with the old certificate %v", reused, s, oldSerial)
	}
	// A broken file on SIGHUP is logged, and the certificate in use stays.
	os.WriteFile(f.serverKey, []byte("garbage"), 0o600)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	time.Sleep(200 * time.Millisecond) // nothing to wait for: the service must not change
	if s, _ := serverSerial(t, newClient(), url); s.Cmp(newSerial) != 0 {
		t.Fatalf("after a failed reload the service presents %v, want %v", s, newSerial)
	}
	code, logs := stop()
	if code != 0 || !strings.Contains(logs, `msg="SIGHUP: reloaded" what=certificate`) ||
		!strings.Contains(logs, `msg="SIGHUP: keep the files in use"`) {
		t.Fatalf("exit %d; log:\n%s", code, logs)
	}
}

// With -auth-reads a read needs the token; "report" and "pick" send it
// with -auth-token-file.
func TestNamenodeAuthReads(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("r3ad\n"), 0o600)
	addr, _ := startNamenode(t, "-auth-token-file", token, "-auth-reads", "-hiveservers", "hs1.example.com:10000")
	base := "http://" + addr
	for _, p := range []string{"/slowpeers", "/v1/datanodes", "/metrics", "/jmx", "/v1/hiveservers", "/v1/hiveservers/pick"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("GET %s without the token: %s", p, resp.Status)
		}
	}
	if code, _, errs := runCmd(t, "", "report", "-namenode", base); code != 1 || !strings.Contains(errs, "401") {
		t.Fatalf("report without the token: exit %d, %s", code, errs)
	}
	if code, out, errs := runCmd(t, "", "report", "-namenode", base, "-json", "-auth-token-file", token); code != 0 || out != "[]\n" {
		t.Fatalf("report with the token: exit %d, %q %s", code, out, errs)
	}
	if code, out, errs := runCmd(t, "", "hiveserver", "pick", "-namenode", base, "-auth-token-file", token); code != 0 || out != "hs1.example.com:10000\n" {
		t.Fatalf("pick with the token: exit %d, %q %s", code, out, errs)
	}
}

// Without a token the service takes hook events only of known HiveServers
// and says at start what is open.
func TestNamenodeOpenRefusesUnknownHiveServers(t *testing.T) {
	addr, stop := startNamenode(t, "-hiveservers", "hs1.example.com:10000")
	send := func(server string) (int, string) {
		form := url.Values{"server": {server}, "hook": {"PRE_EXEC_HOOK"}, "queryId": {"q-" + server},
			"queryStr": {"select%201"}, "jobName": {"j"}, "timestamp": {strconv.FormatInt(time.Now().UnixMilli(), 10)}}
		resp, err := http.PostForm("http://"+addr+"/rest/hiveserver/send", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send("evil.example.com:10000"); code != http.StatusForbidden || !strings.Contains(body, `"error":"HiveServer evil.example.com:10000 is not known`) {
		t.Fatalf("event of an unknown HiveServer: %d %s", code, body)
	}
	if code, body := send("hs1.example.com:10000"); code != 200 {
		t.Fatalf("event of a known HiveServer: %d %s", code, body)
	}
	resp, err := http.Get("http://" + addr + "/v1/hiveservers/pick")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"server":"hs1.example.com:10000"`) {
		t.Fatalf("pick = %s", b)
	}
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "slowpeer_hiveserver_events_refused_total 1\n") {
		t.Fatal("/metrics does not count the refused event")
	}
	// startNamenode keeps the log after the "serving" line; the warning
	// comes before it, so read it from a second service's whole log.
	stop()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &untilServing{cancel: cancel}
	run(ctx, []string{"namenode", "-listen", "127.0.0.1:0", "-conf", t.TempDir(), "-store", "sqlite:" + filepath.Join(t.TempDir(), "h.db")},
		strings.NewReader(""), io.Discard, stderr)
	for _, want := range []string{"no auth token", "POST /rest/hiveserver/send", "POST /v1/heartbeat", "GET /v1/hiveservers/pick"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("start-up log lacks %q:\n%s", want, stderr.String())
		}
	}
}

// mtlsClient is a client with the test's client certificate.
func mtlsClient(t *testing.T, f tlsFiles) *http.Client {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := os.ReadFile(f.ca)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func getJSON(c *http.Client, url string, v any) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// serverSerial GETs url and returns the serial number of the certificate
// the service presented and whether the connection was an old one.
func serverSerial(t *testing.T, c *http.Client, url string) (*big.Int, bool) {
	t.Helper()
	var reused bool
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	}))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return resp.TLS.PeerCertificates[0].SerialNumber, reused
}

// untilServing keeps a log and calls cancel once the service serves.
type untilServing struct {
	bytes.Buffer
	cancel func()
}

func (w *untilServing) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("msg=serving")) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}
