package namenode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// TestExclude: a DataNode named in dfs.hosts.exclude leaves the slow set
// at once (logged), never enters it again while excluded, is shown as
// excluded (/v1/datanodes, metrics, JMX Decommissioned) and its host is
// avoided; a refresh with a bad file keeps the set in force; a refresh
// without it brings the node back to its place after a new streak.
func TestExclude(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dfs.exclude")
	s, clock, logs := newTestServer(t, func(c *Config) { c.HostsExcludeFile = path })
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const slow, other = "10.0.0.5:9866", "10.0.0.6:9866"
	beat := func() {
		mustHeartbeat(t, s, report("10.0.0.2:9866", slow, other))
		mustHeartbeat(t, s, reports.Heartbeat{Node: slow, HTTPAddress: "10.0.0.5:9864"})
		mustHeartbeat(t, s, reports.Heartbeat{Node: other})
		s.Diagnose(clock.Now())
	}
	write("# nothing yet\n")
	if _, err := s.RefreshNodes(t.Context()); err != nil {
		t.Fatal(err)
	}
	beat()
	if !slices.Contains(s.SlowNodes(clock.Now()), slow) {
		t.Fatal("not in the slow set before the exclusion")
	}

	write("10.0.0.5 # the slow one, every port\n")
	w := do(t, s, "POST", RefreshPath, "")
	var r Refresh
	if err := json.Unmarshal(w.Body.Bytes(), &r); w.Code != 200 || err != nil {
		t.Fatalf("POST %s: %d %s", RefreshPath, w.Code, w.Body)
	}
	if r.File != path || r.Entries != 1 || r.Excluded != 1 {
		t.Fatalf("refresh %+v", r)
	}
	if l := logLines(logs, "slow set left"); len(l) != 1 || !strings.Contains(l[0], "node="+slow) || !strings.Contains(l[0], "reason=excluded") {
		t.Fatalf("the exclusion's exit is not logged as one line: %q", l)
	}
	beat() // still reported: it stays out
	if slices.Contains(s.SlowNodes(clock.Now()), slow) || mustHeartbeat(t, s, report(slow)) {
		t.Fatal("an excluded node is in the slow set")
	}
	if !slices.Contains(s.AvoidedHosts(clock.Now()), "10.0.0.5") {
		t.Fatalf("AvoidedHosts %v lacks the excluded host", s.AvoidedHosts(clock.Now()))
	}
	if w := do(t, s, "GET", DataNodesPath, ""); !strings.Contains(w.Body.String(), `{"node":"10.0.0.5:9866","state":"excluded"`) {
		t.Fatalf("/v1/datanodes: %s", w.Body)
	}
	if _, m := scrape(t, s); m[`slowpeer_datanodes{state="excluded"}`] != 1 || m[`slowpeer_datanodes{state="live"}`] != 2 ||
		m[`slowpeer_slow_set_member{node="10.0.0.5:9866"}`] != 0 {
		t.Fatalf("metrics: %v", m)
	}
	info := attr(t, getBeans(t, s, ""), NameNodeInfoBean, "LiveNodes").(string)
	if !strings.Contains(info, `"10.0.0.5:9866":{"adminState":"Decommissioned"`) {
		t.Fatalf("LiveNodes %s", info)
	}
	if got := attr(t, getBeans(t, s, ""), "Hadoop:service=NameNode,name=FSNamesystemState", "NumDecomLiveDataNodes"); fmt.Sprint(got) != "1" {
		t.Fatalf("NumDecomLiveDataNodes %v", got)
	}

	// A bad file: an error naming it, and the exclusion stays.
	write("10.0.0.5\n10.0.0.6:0\n")
	w = do(t, s, "POST", RefreshPath, "")
	wantError(t, w, 500, path+": line 2")
	if !s.Excluded(slow) {
		t.Fatal("a bad file changed the exclusions")
	}

	// Taken off the file: it must be found for enter-after again (0 here).
	write("")
	if _, err := s.RefreshNodes(t.Context()); err != nil {
		t.Fatal(err)
	}
	beat()
	if s.Excluded(slow) || !slices.Contains(s.SlowNodes(clock.Now()), slow) {
		t.Fatal("back in service, it is not judged again")
	}
}

// TestRefreshWithoutFile: without dfs.hosts.exclude nothing is excluded,
// and a refresh says so.
func TestRefreshWithoutFile(t *testing.T) {
	s, _, _ := newTestServer(t, nil)
	w := do(t, s, "POST", RefreshPath, "")
	if w.Code != 200 || w.Body.String() != `{"file":"","entries":0,"excluded":0,"unresolved":[]}` {
		t.Fatalf("POST %s: %d %s", RefreshPath, w.Code, w.Body)
	}
	if w := do(t, s, "GET", RefreshPath, ""); w.Code != 405 {
		t.Fatalf("GET %s: %d", RefreshPath, w.Code)
	}
}

// TestExcludeNeedsToken: with a token, refresh and forget are POSTs that
// need it.
func TestExcludeNeedsToken(t *testing.T) {
	s, _, _ := newTestServer(t, func(c *Config) { c.AuthToken = "s3cret" })
	wantError(t, do(t, s, "POST", RefreshPath, ""), 401, "bearer token")
	wantError(t, do(t, s, "POST", ForgetPath, `{"node":"10.0.0.9:9866"}`), 401, "bearer token")
	if w := do(t, s, "POST", RefreshPath, "", "Authorization", "Bearer s3cret"); w.Code != 200 {
		t.Fatalf("with the token: %d %s", w.Code, w.Body)
	}
}
