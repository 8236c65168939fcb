package hive

import (
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/slowpeer/slowpeer/internal/testenv"
)

const server = "hs1.example.com:10000"

// statement is one query the test sends through the hook, start to end.
type statement struct {
	id, text string
	end      string            // POST_EXEC_HOOK or ON_FAILURE_HOOK
	conf     map[string]string // job name keys
	jobName  string            // what the service must store
}

// The statements: Chinese text, "+", "%" (also "%41", which a single
// decoding would turn into "A"), "&", and the rest of what a form encoding
// can get wrong.
var statements = []statement{
	{"hive_20240101120000_1", "SELECT name AS 名字 FROM 用户表 WHERE city = '北京'", "POST_EXEC_HOOK",
		map[string]string{"mapred.job.name": "日报 daily"}, "日报 daily"},
	{"hive_20240101120000_2", "SELECT a + b, c+1, '+' FROM t", "POST_EXEC_HOOK",
		map[string]string{"mapreduce.job.name": "plus"}, "plus"},
	{"hive_20240101120000_3", "SELECT * FROM t WHERE name LIKE '%abc%' AND pct = '100%' AND x = '%41'", "ON_FAILURE_HOOK",
		nil, ""},
	{"hive_20240101120000_4", "SELECT a & b FROM t WHERE x = 'a&b=c' AND y = '&amp;'", "POST_EXEC_HOOK",
		map[string]string{"mapred.job.name": "  amp\tjob\n"}, "amp job"},
	{"hive_20240101120000_5", "INSERT OVERWRITE TABLE t\nSELECT '%2B', '%25', ' ', \"q\", '\\\\', '~*#?=', '😀'\n\tFROM s -- done",
		"ON_FAILURE_HOOK", nil, ""},
}

// TestHookDelivers runs the Java hook, compiled against Hive's hook API, as
// Hive would for five statements: their PRE events over HTTP with a bearer
// token, their POST or FAILURE events over HTTPS with the hook's own trust
// store. The service must count them running, then done, and store each
// queryStr exactly as Hive gave it. Events the service cannot take (no
// token, an untrusted certificate, nobody listening, nobody answering, a
// bad setting) are logged by the hook, never thrown into Hive, and never
// stored.
func TestHookDelivers(t *testing.T) {
	classes := compileHook(t)
	keytool := testenv.Command(t, "keytool")
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("hook-s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := startService(t, buildSlowpeer(t), "-auth-token-file", token)

	// HTTPS in front of the service, and a PKCS12 trust store of its certificate.
	target, _ := url.Parse(svc.base)
	proxy := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(target))
	defer proxy.Close()
	certFile := filepath.Join(dir, "proxy.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: proxy.Certificate().Raw}), 0o600)
	trust := filepath.Join(dir, "trust.p12")
	if b, err := exec.Command(keytool, "-importcert", "-noprompt", "-alias", "slowpeer", "-file", certFile,
		"-keystore", trust, "-storetype", "PKCS12", "-storepass", "changeit").CombinedOutput(); err != nil {
		t.Fatalf("keytool: %v\n%s", err, b)
	}

	httpConf := map[string]string{
		"slowpeer.hook.url":        svc.base + "/rest/hiveserver/send",
		"slowpeer.hook.server":     server,
		"slowpeer.hook.token.file": token,
	}
	httpsConf := map[string]string{
		"slowpeer.hook.url":                 proxy.URL + "/rest/hiveserver/send",
		"slowpeer.hook.server":              server,
		"slowpeer.hook.token.file":          token,
		"slowpeer.hook.truststore":          trust,
		"slowpeer.hook.truststore.password": "changeit",
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		c := map[string]string{}
		for k, v := range base {
			c[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(c, kv[i])
			} else {
				c[kv[i]] = kv[i+1]
			}
		}
		return c
	}

	var starts, ends []run
	for _, s := range statements {
		starts = append(starts, run{"PRE_EXEC_HOOK", s.id, s.text, with(httpConf, flat(s.conf)...)})
		ends = append(ends, run{s.end, s.id, s.text, with(httpsConf, flat(s.conf)...)})
	}
	startResults := runHook(t, classes, starts)
	for i, r := range startResults {
		if r.threw != "-" || r.log != "" {
			t.Fatalf("PRE of %s: threw %s, logged %q", statements[i].id, r.threw, r.log)
		}
	}
	if got := running(t, svc.base); got != len(statements) {
		t.Fatalf("after the PRE events %s runs %d statements, want %d", server, got, len(statements))
	}

	// Each bad run would start a statement if it got through.
	hole := blackhole(t)
	bad := []struct {
		conf map[string]string
		log  string
	}{
		{with(httpConf, "slowpeer.hook.token.file", ""), "HTTP 401"},
		{with(httpConf, "slowpeer.hook.token.file", filepath.Join(dir, "missing")), "read slowpeer.hook.token.file"},
		{with(httpsConf, "slowpeer.hook.truststore", ""), "SSLHandshakeException"},
		{with(httpConf, "slowpeer.hook.url", "http://"+freeAddr(t)+"/rest/hiveserver/send"), "ConnectException"},
		{with(httpConf, "slowpeer.hook.url", "http://"+hole+"/rest/hiveserver/send", "slowpeer.hook.timeout.ms", "300"), "SocketTimeoutException"},
		{with(httpConf, "slowpeer.hook.timeout.ms", "soon"), `slowpeer.hook.timeout.ms "soon" is not a positive number`},
		{with(httpConf, "slowpeer.hook.url", "ftp://example.com/"), "is not an http or https URL"},
		{with(httpConf, "slowpeer.hook.url", ""), "slowpeer.hook.url is not set; no events are sent"},
	}
	runs := ends
	for i, b := range bad {
		runs = append(runs, run{"PRE_EXEC_HOOK", "bad_" + string(rune('a'+i)), "SELECT 1", b.conf})
	}
	results := runHook(t, classes, runs)
	for i, r := range results {
		if r.threw != "-" {
			t.Errorf("run %d (%s) threw %s into Hive", i+1, runs[i].queryID, r.threw)
		}
		if i < len(ends) {
			if r.log != "" {
				t.Errorf("%s of %s logged %q", runs[i].hook, runs[i].queryID, r.log)
			}
			continue
		}
		if want := bad[i-len(ends)].log; !strings.Contains(r.log, want) || !strings.HasPrefix(r.log, "WARN io.slowpeer.hive.SlowpeerHook: slowpeer hook: ") {
			t.Errorf("bad run %s logged %q, want a warning with %q", runs[i].queryID, r.log, want)
		}
		t.Logf("bad run %s took %d ms: %s", runs[i].queryID, r.endMs-r.startMs, strings.TrimSpace(r.log))
		// The read timeout holds (300 ms, generously bounded).
		if ms := r.endMs - r.startMs; ms > 5000 {
			t.Errorf("bad run %s kept Hive waiting %d ms", runs[i].queryID, ms)
		}
	}
	if got := running(t, svc.base); got != 0 {
		t.Fatalf("after the ends %s still runs %d statements", server, got)
	}

	// What was stored, read from the store once the service has stopped.
	svc.stop(t)
	db, err := sql.Open("sqlite", svc.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT server, hook, queryId, queryStr, jobName, preTime, postTime FROM hive_queries ORDER BY queryId`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var srv, hook, id, text, job string
		var pre, post int64
		if err := rows.Scan(&srv, &hook, &id, &text, &job, &pre, &post); err != nil {
			t.Fatal(err)
		}
		if i >= len(statements) {
			t.Fatalf("stored an extra row %s %s", hook, id)
		}
		s := statements[i]
		if srv != server || id != s.id || hook != s.end || text != s.text || job != s.jobName {
			t.Errorf("stored %q %s %s queryStr %q jobName %q,\nwant %q %s %s queryStr %q jobName %q",
				srv, id, hook, text, job, server, s.id, s.end, s.text, s.jobName)
		}
		if r := startResults[i]; pre < r.startMs || pre > r.endMs {
			t.Errorf("%s preTime %d outside the PRE hook's run [%d, %d]", id, pre, r.startMs, r.endMs)
		}
		if r := results[i]; post < r.startMs || post > r.endMs {
			t.Errorf("%s postTime %d outside the end hook's run [%d, %d]", id, post, r.startMs, r.endMs)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(statements) {
		t.Fatalf("stored %d rows, want %d", i, len(statements))
	}
}

// running returns the running count of the test's HiveServer on GET
// /v1/hiveservers.
func running(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/v1/hiveservers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var servers []struct {
		Server  string `json:"server"`
		Running int    `json:"running"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&servers); err != nil {
		t.Fatalf("GET /v1/hiveservers: %v", err)
	}
	for _, s := range servers {
		if s.Server == server {
			return s.Running
		}
	}
	t.Fatalf("GET /v1/hiveservers does not list %s: %+v", server, servers)
	return 0
}

func flat(m map[string]string) []string {
	var kv []string
	for k, v := range m {
		kv = append(kv, k, v)
	}
	return kv
}
