package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// postHeartbeat sends hb to the service at addr.
func postHeartbeat(t *testing.T, addr string, hb reports.Heartbeat) {
	t.Helper()
	body, _ := json.Marshal(hb)
	resp, err := http.Post("http://"+addr+reports.HeartbeatPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("heartbeat of %s: %s", hb.Node, resp.Status)
	}
}

// adminReportOf runs "admin -report -json" against addr and returns the
// state of each DataNode.
func adminReportOf(t *testing.T, addr string, args ...string) map[string]dataNodeRow {
	t.Helper()
	code, out, errOut := runCmd(t, "", append([]string{"admin", "-namenode", "http://" + addr, "-report", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("admin -report: exit %d: %s", code, errOut)
	}
	var r adminReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("admin -report -json: %v\n%s", err, out)
	}
	rows := map[string]dataNodeRow{}
	for _, d := range r.DataNodes {
		rows[d.Node] = d
	}
	return rows
}

// TestAdminExcludeAndForgetSurviveRestart: dfs.hosts.exclude excludes a
// node after "admin -refresh-nodes" and after SIGHUP, and its host gets
// no Hive work; "admin -forget"
// drops one; after a restart from the state file and the same exclude
// file, the excluded node is still excluded and the forgotten one gone,
// while the others are back.
func TestAdminExcludeAndForgetSurviveRestart(t *testing.T) {
	guard := make(chan os.Signal, 4) // SIGHUP must not end the test
	signal.Notify(guard, syscall.SIGHUP)
	defer signal.Stop(guard)

	dir := t.TempDir()
	exclude, state := filepath.Join(dir, "dfs.exclude"), filepath.Join(dir, "state.json")
	if err := os.WriteFile(exclude, []byte("# none yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-D", "dfs.hosts.exclude=" + exclude, "-state-file", state, "-hiveservers", "10.0.0.2:10000,hs1.example.com:10000"}
	addr, stop := startNamenode(t, args...)
	const keep, out, gone, hupped = "10.0.0.1:9866", "10.0.0.2:9866", "10.0.0.3:9866", "10.0.0.4:9866"
	for _, n := range []string{keep, out, gone, hupped} {
		postHeartbeat(t, addr, reports.Heartbeat{Node: n, HTTPAddress: reports.Host(n) + ":9864"})
	}
	if rows := adminReportOf(t, addr); len(rows) != 4 || rows[keep].State != "live" || rows[keep].HTTPAddress != "10.0.0.1:9864" {
		t.Fatalf("report: %+v", rows)
	}

	if err := os.WriteFile(exclude, []byte(out+" # decommissioned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := runCmd(t, "", "admin", "-namenode", "http://"+addr, "-refresh-nodes")
	if code != 0 || !strings.Contains(stdout, "Refresh nodes successful for http://"+addr+": dfs.hosts.exclude "+exclude+", 1 entries, 1 DataNodes excluded") {
		t.Fatalf("admin -refresh-nodes: exit %d\n%s%s", code, stdout, errOut)
	}
	code, stdout, errOut = runCmd(t, "", "admin", "-namenode", "http://"+addr, "-forget", gone)
	if code != 0 || stdout != "Forgot "+gone+" on http://"+addr+" (it was live)\n"+
		"  its agent still runs: it comes back at its next heartbeat unless it is stopped\n" {
		t.Fatalf("admin -forget: exit %d\n%s%s", code, stdout, errOut)
	}
	// SIGHUP re-reads the file too.
	if err := os.WriteFile(exclude, []byte(out+"\n"+hupped+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	for deadline := time.Now().Add(10 * time.Second); adminReportOf(t, addr)[hupped].State != "excluded"; {
		if time.Now().After(deadline) {
			t.Fatal("SIGHUP did not re-read dfs.hosts.exclude")
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := func(rows map[string]dataNodeRow) {
		t.Helper()
		if _, ok := rows[gone]; ok || len(rows) != 3 || rows[keep].State != "live" || rows[out].State != "excluded" || rows[hupped].State != "excluded" {
			t.Fatalf("report: %+v", rows)
		}
	}
	want(adminReportOf(t, addr))
	// The excluded node's host gets no Hive work: hs1 is the only pick.
	resp, err := http.Get("http://" + addr + "/v1/hiveservers")
	if err != nil {
		t.Fatal(err)
	}
	var servers []map[string]any
	json.NewDecoder(resp.Body).Decode(&servers)
	resp.Body.Close()
	if len(servers) != 2 || servers[0]["server"] != "10.0.0.2:10000" || servers[0]["slowHost"] != true || servers[1]["slowHost"] != false {
		t.Fatalf("/v1/hiveservers: %v", servers)
	}
	for range 5 {
		if code, out, errOut := runCmd(t, "", "hiveserver", "pick", "-namenode", "http://"+addr); code != 0 || out != "hs1.example.com:10000\n" {
			t.Fatalf("pick: %d %q %s", code, out, errOut)
		}
	}
	if rows := adminReportOf(t, addr, "-excluded"); len(rows) != 2 {
		t.Fatalf("-excluded lists %+v", rows)
	}
	if code, logs := stop(); code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}

	addr2, _ := startNamenode(t, args...)
	want(adminReportOf(t, addr2))
	code, stdout, _ = runCmd(t, "", "admin", "-namenode", "http://"+addr2, "-report")
	if code != 0 || !strings.Contains(stdout, "DataNodes: 3 (1 live, 0 stale, 0 dead, 2 excluded); slow set: 0 nodes, 0 links") {
		t.Fatalf("admin -report: %d\n%s", code, stdout)
	}
	if code, stdout, _ := runCmd(t, "", "admin", "-namenode", "http://"+addr2, "-forget", gone); code != 0 || !strings.Contains(stdout, "did not know") {
		t.Fatalf("forgetting it again: %d %s", code, stdout)
	}
}

func TestAdminUsage(t *testing.T) {
	f := func(want string, args ...string) {
		t.Helper()
		code, out, errOut := runCmd(t, "", append([]string{"admin"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, `Run "slowpeer admin -h"`) {
			t.Fatalf("admin %v: exit %d, %q %q; want 2 and %q", args, code, out, errOut, want)
		}
	}
	f("give one of -report, -refresh-nodes, -forget H:P", "-namenode", "http://x:1")
	f("give one of", "-namenode", "http://x:1", "-report", "-refreshNodes")
	f("-namenode SERVICES is required", "-report")
	f(`-forget: node id "nohost" is not host:port`, "-namenode", "http://x:1", "-forget", "nohost")
	f(`-namenode "ftp://x" is not an http or https URL`, "-namenode", "ftp://x", "-report")
}
