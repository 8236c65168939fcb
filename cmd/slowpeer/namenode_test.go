package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/namenode"
)

// Bad command lines and bad values exit 2 with a message that names the
// flag or the key and the value, and start nothing.
func TestNamenodeUsageErrors(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	f := func(args []string, want ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"namenode"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 {
			t.Fatalf("%v: exit %d, stdout %q; want 2 and nothing", args, code, stdout.String())
		}
		for _, w := range want {
			if !strings.Contains(stderr.String(), w) {
				t.Fatalf("%v: stderr %q does not say %q", args, stderr.String(), w)
			}
		}
	}
	ok := []string{"-listen", "127.0.0.1:0"}
	with := func(extra ...string) []string { return append(append([]string(nil), ok...), extra...) }
	f(nil, "-listen ADDR is required")
	f([]string{"-listen", "9871"}, `-listen "9871" is not host:port`)
	f(with("extra"), `unexpected argument "extra"`)
	f(with("-nope"), "flag provided but not defined: -nope")
	f(with("-D", "dfs.heartbeat.interval=abc"), "configuration dfs.heartbeat.interval", `"abc"`)
	f(with("-D", "dfs.heartbeat.interval=0"), "configuration dfs.heartbeat.interval", `"0" must be more than zero`)
	f(with("-D", "dfs.heartbeat.interval=-3s"), "dfs.heartbeat.interval", `"-3s" is negative`)
	f(with("-D", "dfs.datanode.outliers.report.interval=1.5h"), "dfs.datanode.outliers.report.interval", `"1.5h"`)
	f(with("-D", "dfs.namenode.heartbeat.recheck-interval=5 minutes"), "dfs.namenode.heartbeat.recheck-interval", `"5 minutes"`)
	f(with("-D", "dfs.namenode.heartbeat.recheck-interval=999d"), "configuration: dfs.namenode.heartbeat.recheck-interval must be at most")
	f(with("-D", "dfs.datanode.max.nodes.to.report=0"), "dfs.datanode.max.nodes.to.report: 0 is outside [1, 100000]")
	f(with("-D", "dfs.datanode.max.nodes.to.report=five"), "dfs.datanode.max.nodes.to.report", `"five"`)
	f(with("-D", "dfs.namenode.max.slowpeer.collect.nodes=100001"), "dfs.namenode.max.slowpeer.collect.nodes: 100001 is outside")
	f(with("-D", "novalue"), `want key=value, got "novalue"`)
	f(with("-conf", filepath.Join(dir, "missing")), "read configuration")
	f(with("-auth-token-file", filepath.Join(dir, "missing")), "-auth-token-file")
	f(with("-auth-token-file", empty), "-auth-token-file", "holds no token")
}

func TestNamenodeConfig(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	dir := t.TempDir()
	site := `<?xml version="1.0"?>
<configuration>
  <property><name>dfs.heartbeat.interval</name><value>10</value></property>
  <property><name>dfs.datanode.outliers.report.interval</name><value>600000</value></property>
  <property><name>dfs.datanode.max.nodes.to.report</name><value>7</value></property>
</configuration>`
	if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(site), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("  s3cret-token\n"), 0o600)

	f := func(args []string, check func(namenode.Config) bool) {
		t.Helper()
		var f namenodeFlags
		fs := newFlagSet("namenode", namenodeSynopsis, io.Discard)
		f.register(fs)
		if err := parseFlags(fs, args); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := f.config()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !check(cfg) {
			t.Fatalf("%v: config %+v", args, cfg)
		}
	}
	// Hadoop's defaults.
	f([]string{"-listen", "127.0.0.1:9871"}, func(c namenode.Config) bool {
		d := namenode.DefaultConfig()
		return c.Listen == "127.0.0.1:9871" && c.HeartbeatInterval == d.HeartbeatInterval &&
			c.OutliersReportInterval == d.OutliersReportInterval && c.HeartbeatRecheckInterval == d.HeartbeatRecheckInterval &&
			c.MaxNodesToReport == 5 && c.MaxSlowPeerCollectNodes == 5 && c.AuthToken == "" &&
			c.StaleInterval == 30*time.Second && c.SoftwareVersion == softwareVersion() && c.SoftwareVersion != ""
	})
	// The stale interval, a bare number in milliseconds as Hadoop reads it.
	f([]string{"-listen", "127.0.0.1:9871", "-D", "dfs.namenode.stale.datanode.interval=45000"}, func(c namenode.Config) bool {
		return c.StaleInterval == 45*time.Second
	})
	// hdfs-site.xml; a bare dfs.heartbeat.interval is seconds, a bare
	// report interval milliseconds.
	f([]string{"-listen", ":9871", "-conf", dir}, func(c namenode.Config) bool {
		return c.HeartbeatInterval == 10*time.Second && c.OutliersReportInterval == 10*time.Minute && c.MaxNodesToReport == 7
	})
	// HADOOP_CONF_DIR when -conf is not given.
	t.Setenv("HADOOP_CONF_DIR", dir)
	f([]string{"-listen", ":9871"}, func(c namenode.Config) bool { return c.HeartbeatInterval == 10*time.Second })
	// -D wins over the files; Hadoop's suffixes work; a bare recheck
	// interval is milliseconds.
	f([]string{"-listen", ":9871", "-conf", dir, "-D", "dfs.heartbeat.interval=7", "-D", "dfs.namenode.heartbeat.recheck-interval=60000",
		"-D", "dfs.datanode.outliers.report.interval=2h", "-D", "dfs.namenode.max.slowpeer.collect.nodes=0x10"}, func(c namenode.Config) bool {
		return c.HeartbeatInterval == 7*time.Second && c.HeartbeatRecheckInterval == time.Minute &&
			c.OutliersReportInterval == 2*time.Hour && c.MaxSlowPeerCollectNodes == 16 && c.MaxNodesToReport == 7
	})
	f([]string{"-listen", ":9871", "-auth-token-file", token}, func(c namenode.Config) bool { return c.AuthToken == "s3cret-token" })
}

// TestNamenodeStartStop starts the service on 127.0.0.1:0, posts a
// heartbeat with the token, reads it back, and stops it with the context
// as SIGINT would.
func TestNamenodeStartStop(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("tok\n"), 0o600)
	addr, stop := startNamenode(t, "-auth-token-file", token, "-hiveservers", "hs1.example.com:10000")

	postTo := func(t *testing.T, url, contentType, body, auth string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post := func(auth string) int {
		return postTo(t, "http://"+addr+"/v1/heartbeat", "application/json", `{"node":"10.0.0.2:9866","slowPeers":[]}`, auth)
	}
	if code := post(""); code != 401 {
		t.Fatalf("heartbeat without token: %d", code)
	}
	if code := post("Bearer tok"); code != 200 {
		t.Fatalf("heartbeat with token: %d", code)
	}
	resp, err := http.Get("http://" + addr + "/v1/datanodes")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"node":"10.0.0.2:9866","state":"live"`) {
		t.Fatalf("/v1/datanodes = %s", body)
	}

	// The HiveServer picker is mounted: hook events need the token too,
	// and a running statement shows on /v1/hiveservers and /metrics.
	hook := "server=hs2.example.com%3A10000&hook=PRE_EXEC_HOOK&queryId=q1&queryStr=select+1&jobName=j&timestamp=" +
		strconv.FormatInt(time.Now().UnixMilli(), 10)
	form := "application/x-www-form-urlencoded"
	if code := postTo(t, "http://"+addr+"/rest/hiveserver/send", form, hook, ""); code != 401 {
		t.Fatalf("hook event without token: %d", code)
	}
	if code := postTo(t, "http://"+addr+"/rest/hiveserver/send", form, hook, "Bearer tok"); code != 200 {
		t.Fatalf("hook event with token: %d", code)
	}
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get("/v1/hiveservers/pick"); !strings.Contains(got, `"server":"hs1.example.com:10000"`) {
		t.Fatalf("pick = %s, want the idle hs1", got)
	}
	if got := get("/metrics"); !strings.Contains(got, `slowpeer_hiveserver_running{server="hs2.example.com:10000"} 1`) {
		t.Fatalf("/metrics lacks the running statement:\n%s", got)
	}

	if code, logs := stop(); code != 0 || !strings.Contains(logs, "msg=\"shutting down\"") {
		t.Fatalf("exit %d, no shutdown in the log:\n%s", code, logs)
	}
	if _, err := http.Get("http://" + addr + "/v1/datanodes"); err == nil {
		t.Fatal("still serving after shutdown")
	}
}

func TestNamenodeListenError(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"namenode", "-listen", "256.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "listen on 256.0.0.1:0") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// startNamenode runs "slowpeer namenode" in-process on 127.0.0.1:0 with
// args and a store of its own, and returns its address and stop, which
// stops it as SIGINT would and returns its exit code and the log lines
// after the one that says where it listens. The test's end stops it too.
func startNamenode(t *testing.T, args ...string) (addr string, stop func() (code int, logs string)) {
	t.Helper()
	t.Setenv("HADOOP_CONF_DIR", "")
	ctx, cancel := context.WithCancel(context.Background())
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	args = append([]string{"namenode", "-listen", "127.0.0.1:0", "-store", "sqlite:" + filepath.Join(t.TempDir(), "hive.db")}, args...)
	go func() {
		done <- run(ctx, args, strings.NewReader(""), io.Discard, logW)
		logW.Close()
	}()
	// The log says where it listens.
	var logs strings.Builder
	lines := bufio.NewScanner(logR)
	// Then that it has its state: it answers everything from then on.
	ready := false
	for !ready && lines.Scan() {
		logs.WriteString(lines.Text() + "\n")
		if _, rest, ok := strings.Cut(lines.Text(), "msg=serving listen="); ok {
			addr = rest
		}
		ready = addr != "" && strings.Contains(logs.String(), "msg=ready")
	}
	drained := make(chan struct{})
	go func() {
		for lines.Scan() {
			logs.WriteString(lines.Text() + "\n")
		}
		io.Copy(io.Discard, logR)
		close(drained)
	}()
	stop = sync.OnceValues(func() (int, string) {
		cancel()
		code := <-done
		<-drained
		return code, logs.String()
	})
	t.Cleanup(func() {
		if code, logs := stop(); code != 0 {
			t.Errorf("slowpeer namenode exited %d:\n%s", code, logs)
		}
	})
	if addr == "" {
		t.Fatalf("slowpeer namenode %v did not start: %v", args, lines.Err())
	}
	return addr, stop
}

// Open (no token, no client CA) on an address that is not loopback, the
// service refuses to start unless -insecure says so: exit 2 and one line
// naming the flag. Loopback stays open.
func TestNamenodeRefusesOpen(t *testing.T) {
	t.Setenv("HADOOP_CONF_DIR", "")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"namenode", "-listen", "0.0.0.0:0", "-store", "sqlite:" + filepath.Join(t.TempDir(), "hive.db")},
		strings.NewReader(""), io.Discard, &stderr)
	if out := strings.TrimSuffix(stderr.String(), "\n"); code != 2 || strings.Contains(out, "\n") || !strings.Contains(out, "-insecure") ||
		!strings.Contains(out, "refusing to serve open on 0.0.0.0:") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}

	f := func(addr string, token string, flags namenodeFlags, refuse bool) {
		t.Helper()
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := flags.refuseOpen(a, token); (err != nil) != refuse {
			t.Errorf("%s, token %q, %+v: %v", addr, token, flags, err)
		}
	}
	f("127.0.0.1:9871", "", namenodeFlags{}, false)
	f("[::1]:9871", "", namenodeFlags{}, false)
	f("0.0.0.0:9871", "", namenodeFlags{}, true)
	f("[::]:9871", "", namenodeFlags{}, true)
	f("10.1.2.3:9871", "", namenodeFlags{}, true)
	f("10.1.2.3:9871", "tok", namenodeFlags{}, false)
	f("10.1.2.3:9871", "", namenodeFlags{tls: serverTLSFlags{clientCA: "ca.pem"}}, false)
	f("10.1.2.3:9871", "", namenodeFlags{insecure: true}, false)
}
