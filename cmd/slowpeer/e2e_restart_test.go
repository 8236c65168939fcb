//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
	"github.com/slowpeer/slowpeer/reports"
)

// replica is one "slowpeer namenode" process of TestReplicaRestart.
type replica struct {
	t      *testing.T
	bin    string
	addr   string
	args   []string
	client *http.Client
	token  string
	p      *proc
}

func (r *replica) start() {
	r.t.Helper()
	r.p = startProc(r.t, r.bin, "namenode "+r.addr, r.addr, r.args...)
}

// kill ends the process with SIGKILL: nothing is saved on the way out.
func (r *replica) kill() {
	r.t.Helper()
	if err := r.p.cmd.Process.Kill(); err != nil {
		r.t.Fatal(err)
	}
	<-r.p.exited
}

// get returns the body of GET path, or "" when the replica does not answer.
func (r *replica) get(path string) string {
	req, _ := http.NewRequest("GET", "http://"+r.addr+path, nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := r.client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return ""
	}
	return string(b)
}

func (r *replica) heartbeat(hb reports.Heartbeat) {
	r.t.Helper()
	body, _ := json.Marshal(hb)
	req, _ := http.NewRequest("POST", "http://"+r.addr+reports.HeartbeatPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		r.t.Fatalf("heartbeat to %s: %s", r.addr, resp.Status)
	}
}

// view is what a replica shows of the cluster: /slowpeers and
// /v1/datanodes.
func (r *replica) view() string {
	sp, dn := r.get(namenode.SlowPeersPath+"?top=100"), r.get(namenode.DataNodesPath)
	if sp == "" || dn == "" {
		return ""
	}
	return sp + "\n" + dn
}

// waitView waits until r shows want and returns how long that took.
func (r *replica) waitView(want string, limit time.Duration) time.Duration {
	r.t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if r.view() == want {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("%s: after %v shows\n%s\nwant\n%s\nlog:\n%s", r.addr, limit, r.view(), want, r.p.logText())
	return 0
}

// A replica killed with SIGKILL and started again shows what the other
// replica shows, taken from it before it answers; alone, it shows what it
// showed before, from its state file.
func TestReplicaRestart(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	bin := buildSlowpeer(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("restart-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	client := &http.Client{Timeout: 2 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	newReplica := func(i int) *replica {
		other := ports[1-i]
		store := filepath.Join(dir, fmt.Sprint("r", i), "hive.db")
		if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
			t.Fatal(err)
		}
		return &replica{t: t, bin: bin, addr: ports[i], client: client, token: "restart-token",
			args: []string{"namenode", "-listen", ports[i], "-store", "sqlite:" + store,
				"-auth-token-file", tokenFile, "-replicas", "http://" + other,
				"-D", "dfs.heartbeat.interval=200ms"}}
	}
	a, b := newReplica(0), newReplica(1)
	a.start()
	b.start()
	for _, r := range []*replica{a, b} {
		r.waitView("[]\n[]", 30*time.Second)
	}

	// The DataNodes send every heartbeat to both replicas.
	hbs := []reports.Heartbeat{
		{Node: "10.0.0.1:9866", SlowPeers: []reports.SlowPeer{{Node: "10.0.0.9:9866", LatencyMs: 41, MedianMs: 2, MADMs: 0.5, UpperLimitMs: 6}}},
		{Node: "10.0.0.2:9866", SlowPeers: []reports.SlowPeer{{Node: "10.0.0.9:9866", LatencyMs: 35.5, MedianMs: 2.5, MADMs: 0.25, UpperLimitMs: 7}}},
		{Node: "10.0.0.3:9866", SlowPeers: []reports.SlowPeer{}},
		{Node: "10.0.0.9:9866"},
	}
	for _, hb := range hbs {
		a.heartbeat(hb)
		b.heartbeat(hb)
	}
	want := a.view()
	if !strings.Contains(want, "10.0.0.9:9866") {
		t.Fatalf("the replica does not show the slow node:\n%s", want)
	}

	// Peer handoff: b comes back with a's view, arrival times included.
	b.kill()
	restart := time.Now()
	b.start()
	b.waitView(want, 30*time.Second)
	t.Logf("restarted replica shows its peer's /slowpeers and /v1/datanodes %v after its exec",
		time.Since(restart).Round(time.Millisecond))
	if !strings.Contains(b.p.logText(), "state taken from a replica") {
		t.Errorf("b's log does not say it took the state from a:\n%s", b.p.logText())
	}

	// Alone: a's file, saved every heartbeat interval, outlives a SIGKILL.
	stateFile := filepath.Join(dir, "r0", stateFileName)
	waitFile(t, stateFile, 2, len(hbs))
	b.kill()
	a.kill()
	a.start()
	a.waitView(want, 30*time.Second)
	if !strings.Contains(a.p.logText(), "state loaded from file") {
		t.Errorf("a's log does not say it loaded its file:\n%s", a.p.logText())
	}
}

// waitFile waits until the state file at path holds reporters reports
// and nodes DataNodes.
func waitFile(t *testing.T, path string, reporters, nodes int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			if st, err := namenode.ParseState(data); err == nil && len(st.Reports) == reporters && len(st.DataNodes) == nodes {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("state file %s never held the cluster", path)
}
