//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// Behind mutual TLS and a token, a starting replica takes the state of a
// live one: it presents its own certificate, trusts its -tls-client-ca,
// and sends its token. A replica whose certificate the other's CA did
// not sign is refused and starts empty, saying why.
func TestReplicaStateOverMTLS(t *testing.T) {
	f := newTLSFiles(t)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("mtls-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsArgs := []string{"-tls-cert", f.serverCert, "-tls-key", f.serverKey, "-tls-client-ca", f.ca,
		"-auth-token-file", token, "-state-file", "none"}
	a, _ := startNamenode(t, tlsArgs...)
	c := mtlsClient(t, f)
	send := func(base string, hb reports.Heartbeat) {
		t.Helper()
		body, _ := json.Marshal(hb)
		req, _ := http.NewRequest("POST", base+reports.HeartbeatPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer mtls-token")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("heartbeat: %s", resp.Status)
		}
	}
	get := func(base, path string) string {
		t.Helper()
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	send("https://"+a, reports.Heartbeat{Node: "10.0.0.1:9866",
		SlowPeers: []reports.SlowPeer{{Node: "10.0.0.9:9866", LatencyMs: 41, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6}}})
	send("https://"+a, reports.Heartbeat{Node: "10.0.0.9:9866"})
	want := get("https://"+a, namenode.SlowPeersPath)
	if !strings.Contains(want, "10.0.0.9:9866") {
		t.Fatalf("the replica does not show the slow node: %s", want)
	}

	b, stopB := startNamenode(t, append(tlsArgs, "-replicas", "https://"+a)...)
	if got := get("https://"+b, namenode.SlowPeersPath); got != want {
		t.Errorf("the started replica shows %s, its peer %s", got, want)
	}
	if _, logs := stopB(); !strings.Contains(logs, "state taken from a replica") {
		t.Errorf("the started replica did not take the state:\n%s", logs)
	}

	// A certificate of another CA: refused by the peer, the state file
	// (none) is the fallback, and the log says why.
	other := newTLSFiles(t)
	_, stopC := startNamenode(t, "-tls-cert", other.serverCert, "-tls-key", other.serverKey, "-tls-client-ca", other.ca,
		"-auth-token-file", token, "-state-file", "none", "-replicas", "https://"+a)
	if _, logs := stopC(); !strings.Contains(logs, "no replica gave its state") || !strings.Contains(logs, "certificate") {
		t.Errorf("a replica of another CA:\n%s", logs)
	}
}
