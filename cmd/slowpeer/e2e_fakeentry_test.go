//go:build e2e

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// fakeReplica is an HTTP server registered in the registry by hand, as
// anyone who may write there can: it keeps every Authorization header
// sent to it, answers heartbeats, and offers a state of made-up DataNodes
// "live" until 2099.
type fakeReplica struct {
	srv    *httptest.Server
	mu     sync.Mutex
	tokens []string
	hits   int
}

func newFakeReplica(t *testing.T) *fakeReplica {
	f := &fakeReplica{}
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	doc, err := namenode.MarshalState(namenode.Snapshot{SavedAt: future,
		DataNodes: []namenode.DataNode{{Node: "10.66.0.1:9866", LastHeartbeat: future}},
		Reports: []tracker.Held{{Reporter: "10.66.0.1:9866", Arrival: future,
			SlowPeers: []reports.SlowPeer{{Node: "10.66.0.2:9866", LatencyMs: 99}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits++
		if a := r.Header.Get("Authorization"); a != "" {
			f.tokens = append(f.tokens, r.URL.Path+": "+a)
		}
		f.mu.Unlock()
		w.Header().Set(reports.ProofHeader, strings.Repeat("0", 64)) // a guess
		switch r.URL.Path {
		case namenode.StatePath:
			w.Write(doc)
		default:
			w.Write([]byte(`{"slow":false}`))
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeReplica) seen() (hits int, tokens []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits, append([]string(nil), f.tokens...)
}

// A fake entry written into the registry by hand, beside real replicas
// with a token over plain HTTP: a starting replica and an agent send it
// no token and take nothing from it; the starting replica takes the
// state of the real one, which proves it holds the token.
func TestRegistryFakeEntry(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	servers := testenv.Etcd(t)
	bin := buildSlowpeer(t)
	var b [6]byte
	rand.Read(b[:])
	root := "/slowpeer-test-fake-" + hex.EncodeToString(b[:])
	registry := "etcd://" + strings.Join(servers, ",") + root
	cli, err := clientv3.New(clientv3.Config{Endpoints: servers, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	t.Cleanup(func() { cli.Delete(context.Background(), root, clientv3.WithPrefix()) })
	fake := newFakeReplica(t)
	fakeAddr := strings.TrimPrefix(fake.srv.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Put(ctx, root+"/namenodes/serverUri="+fakeAddr+";version=9.9;sequence=0000000000", fakeAddr); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("fake-entry-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 3)
	client := &http.Client{Timeout: 2 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	newReplica := func(i int) *replica {
		return &replica{t: t, bin: bin, addr: ports[i], client: client, token: "fake-entry-token",
			args: []string{"namenode", "-listen", ports[i], "-store", "sqlite:" + filepath.Join(t.TempDir(), "hive.db"),
				"-auth-token-file", tokenFile, "-registry", registry, "-D", "slowpeer.registry.lease.timeout=2s",
				"-D", "dfs.heartbeat.interval=1"}}
	}
	a := newReplica(0)
	a.start()
	a.waitView("[]\n[]", 30*time.Second)
	a.heartbeat(reports.Heartbeat{Node: "10.0.0.1:9866", SlowPeers: []reports.SlowPeer{{Node: "10.0.0.9:9866", LatencyMs: 41}}})
	want := a.view()
	if strings.Contains(want, "10.66.") {
		t.Fatalf("the first replica took the fake entry's state:\n%s", want)
	}

	// The second takes the state of the first, which proves it holds the
	// token, and nothing of the fake.
	b2 := newReplica(1)
	b2.start()
	b2.waitView(want, 30*time.Second)
	if !strings.Contains(b2.p.logText(), "state taken from a replica") || !strings.Contains(b2.p.logText(), "not trusted") {
		t.Errorf("the second replica's log does not say it took a's state and distrusted the fake:\n%s", b2.p.logText())
	}

	// An agent following the registry heartbeats all three, the fake
	// without the token.
	startProc(t, bin, "agent", ports[2], "datanode", "-id", ports[2], "-namenode", registry,
		"-auth-token-file", tokenFile, "-D", "dfs.heartbeat.interval=1")
	testenv.WaitFor(t, "the agent's heartbeats at both real replicas", 20*time.Second, func() bool {
		return strings.Contains(a.get(namenode.DataNodesPath), ports[2]) && strings.Contains(b2.get(namenode.DataNodesPath), ports[2])
	})
	testenv.WaitFor(t, "the agent at the fake entry", 10*time.Second, func() bool {
		hits, _ := fake.seen()
		return hits >= 3
	})
	if hits, tokens := fake.seen(); len(tokens) > 0 {
		t.Errorf("the fake entry received the token in %d of %d requests: %q", len(tokens), hits, tokens)
	}
}
