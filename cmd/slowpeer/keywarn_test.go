package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/hadoopconf"
)

// loadConf parses args as the daemons' -conf and -D and loads them.
func loadConf(t *testing.T, args ...string) *confFlags {
	t.Helper()
	t.Setenv("HADOOP_CONF_DIR", "")
	var c confFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if _, err := c.load(); err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestKeyWarnings: a misspelt key is named with the closest known key; a
// key of the other daemon given with -D is named as such; in the files,
// only slowpeer.* keys no daemon reads are warned about; a -D a final
// property overrides is said to be ignored.
func TestKeyWarnings(t *testing.T) {
	dir := t.TempDir()
	site := `<configuration>
<property><name>slowpeer.probe.intervall</name><value>3s</value></property>
<property><name>slowpeer.namenode.max.datanodes</name><value>9</value></property>
<property><name>dfs.replication</name><value>3</value></property>
<property><name>dfs.heartbeat.interval</name><value>3</value><final>true</final></property>
</configuration>`
	if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	c := loadConf(t, "-conf", dir, "-D", "slowpeer.slow.enter.reporter=3", "-D", "slowpeer.namenode.max.datanodes=5",
		"-D", "dfs.replication=2", "-D", "dfs.heartbeat.interval=1", "-D", "slowpeer.rolling.window=1m")
	got := keyWarnings(c, "datanode", datanodeKeyNames(), namenodeKeyNames(), "namenode")
	want := []string{
		"-D dfs.replication: slowpeer datanode reads no such key",
		"-D slowpeer.namenode.max.datanodes is a key of slowpeer namenode: slowpeer datanode does not read it",
		"hdfs-site.xml: slowpeer.probe.intervall is no key of slowpeer's; did you mean slowpeer.probe.interval?",
		"-D slowpeer.slow.enter.reporter: slowpeer datanode reads no such key; did you mean slowpeer.slow.enter.reporters?",
		"-D dfs.heartbeat.interval is ignored: it is final in hdfs-site.xml",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := keyWarnings(loadConf(t), "namenode", namenodeKeyNames(), datanodeKeyNames(), "datanode"); len(got) != 0 {
		t.Fatalf("no configuration, warnings %q", got)
	}
}

func TestClosestKey(t *testing.T) {
	keys := namenodeKeyNames()
	f := func(key, want string) {
		t.Helper()
		if got := closestKey(key, keys); got != want {
			t.Fatalf("closestKey(%q) = %q, want %q", key, got, want)
		}
	}
	f("slowpeer.slow.leave.aftr", "slowpeer.slow.leave.after")
	f("dfs.namenode.heartbeat.recheck.interval", "dfs.namenode.heartbeat.recheck-interval")
	f("dfs.hosts.excludes", "dfs.hosts.exclude")
	f("slowpeer.something.else.entirely", "")
	f("x", "")
}

// TestConfEndpoint: both daemons serve /conf as ConfServlet does: every
// key of the daemon with its default and its source, the values of the
// files and of -D with theirs.
func TestConfEndpoint(t *testing.T) {
	dir := t.TempDir()
	site := `<configuration><property><name>dfs.namenode.stale.datanode.interval</name><value>45s</value></property></configuration>`
	if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startNamenode(t, "-conf", dir, "-D", "slowpeer.slow.leave.after=2h")
	get := func(path string) (string, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %s", path, resp.Status, b)
		}
		return resp.Header.Get("Content-Type"), string(b)
	}
	ctype, body := get("/conf")
	for _, want := range []string{
		`<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration>`,
		"<property><name>dfs.namenode.stale.datanode.interval</name><value>45s</value><final>false</final><source>hdfs-site.xml</source></property>",
		"<property><name>slowpeer.slow.leave.after</name><value>2h</value><final>false</final><source>from command line</source></property>",
		"<property><name>dfs.heartbeat.interval</name><value>3s</value><final>false</final><source>default</source></property>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/conf lacks %s", want)
		}
	}
	if ctype != "text/xml; charset=utf-8" || strings.Contains(body, "slowpeer.probe.interval") {
		t.Errorf("/conf: %s, or lists an agent's key:\n%s", ctype, body)
	}
	_, body = get("/conf?format=json")
	var doc struct{ Properties []map[string]any }
	if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Properties) != len(namenodeKeyNames()) {
		t.Fatalf("/conf?format=json: %d properties for %d keys, %v", len(doc.Properties), len(namenodeKeyNames()), err)
	}

	// The agent's.
	c := loadConf(t, "-D", "slowpeer.probe.packets=8")
	props := c.properties(datanodeDefaults()...)
	p := props[slices.IndexFunc(props, func(p hadoopconf.Property) bool { return p.Key == "slowpeer.probe.packets" })]
	if p.Value != "8" || p.Source != hadoopconf.SourceCommandLine || len(props) != len(datanodeKeyNames()) {
		t.Fatalf("agent's /conf: %+v of %d", p, len(props))
	}
}

func TestPeerWarnings(t *testing.T) {
	cfg := datanode.DefaultConfig()
	cfg.ID = "10.0.0.1:9866"
	if w := peerWarnings(cfg); len(w) != 1 || !strings.HasPrefix(w[0], "no -peers: this agent probes nobody") {
		t.Fatalf("no peers: %q", w)
	}
	cfg.Peers = []string{"10.0.0.1:9866", "10.0.0.2:9866"}
	if w := peerWarnings(cfg); len(w) != 1 || !strings.HasPrefix(w[0], "-peers names 1 peer, but the outlier test needs 10") ||
		!strings.Contains(w[0], "nothing here can name a slow node") {
		t.Fatalf("one peer: %q", w)
	}
	cfg.Peers = append(cfg.Peers, "10.0.1.9:9866")
	if w := peerWarnings(cfg); len(w) != 1 || !strings.Contains(w[0], "with 2 peers (a cluster of 3 DataNodes) the fast path can still confirm a slow receiver") {
		t.Fatalf("two peers: %q", w)
	}
	for i := range 2 {
		cfg.Peers = append(cfg.Peers, fmt.Sprintf("10.0.1.%d:9866", i))
	}
	if w := peerWarnings(cfg); len(w) != 1 || !strings.HasPrefix(w[0], "-peers names 4 peers, but the outlier test needs 10") ||
		!strings.Contains(w[0], "works from 4 DataNodes") {
		t.Fatalf("4 peers: %q", w)
	}
	for i := range 10 {
		cfg.Peers = append(cfg.Peers, fmt.Sprintf("10.0.2.%d:9866", i))
	}
	if w := peerWarnings(cfg); len(w) != 0 {
		t.Fatalf("enough peers: %q", w)
	}
	for i := range 300 {
		cfg.Peers = append(cfg.Peers, fmt.Sprintf("10.0.3.%d:9866", i))
	}
	if w := peerWarnings(cfg); len(w) != 1 || !strings.Contains(w[0], "more than slowpeer.probe.coverage 30s") {
		t.Fatalf("314 peers: %q", w)
	}
	cfg.Peers, cfg.HadoopJMX = nil, "http://dn:9864/jmx"
	if w := peerWarnings(cfg); len(w) != 0 {
		t.Fatalf("-hadoop-jmx: %q", w)
	}
}

func TestLogFlags(t *testing.T) {
	f := func(level, format string, ok bool) {
		t.Helper()
		var b strings.Builder
		l, err := (&logFlags{level: level, format: format}).logger(&b)
		if (err == nil) != ok {
			t.Fatalf("-log-level %s -log-format %s: %v", level, format, err)
		}
		if !ok {
			return
		}
		l.Debug("d")
		l.Error("w", "k", 1)
		if format == "json" && !strings.Contains(b.String(), `"msg":"w","k":1}`) || format == "text" && !strings.Contains(b.String(), "msg=w k=1") {
			t.Fatalf("log %q", b.String())
		}
		debug := strings.Contains(b.String(), `"msg":"d"`) || strings.Contains(b.String(), "msg=d")
		if debug != strings.EqualFold(level, "debug") {
			t.Fatalf("-log-level %s: debug logged %v", level, debug)
		}
	}
	f("info", "text", true)
	f("DEBUG", "json", true)
	f("warn", "json", true)
	f("error", "text", true)
	f("info+2", "text", false)
	f("verbose", "text", false)
	f("info", "yaml", false)
}
