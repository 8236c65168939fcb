package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Reference: Configuration.getTimeDuration and ParsedTimeDuration (Hadoop).
func TestParseHadoopDuration(t *testing.T) {
	f := func(s string, bare, want time.Duration, wantErr bool) {
		t.Helper()
		got, err := parseHadoopDuration(s, bare)
		if (err != nil) != wantErr {
			t.Fatalf("parseHadoopDuration(%q): err = %v, want error %v", s, err, wantErr)
		}
		if got != want {
			t.Fatalf("parseHadoopDuration(%q) = %v, want %v", s, got, want)
		}
	}
	f("3", time.Second, 3*time.Second, false)
	f("3", time.Millisecond, 3*time.Millisecond, false)
	f(" 30m ", time.Millisecond, 30*time.Minute, false)
	f("5ms", time.Second, 5*time.Millisecond, false)
	f("5MS", time.Second, 5*time.Millisecond, false)
	f("7ns", time.Second, 7, false)
	f("7us", time.Second, 7*time.Microsecond, false)
	f("2s", time.Millisecond, 2*time.Second, false)
	f("1h", time.Millisecond, time.Hour, false)
	f("2d", time.Millisecond, 48*time.Hour, false)
	f("0", time.Second, 0, false)
	f("", time.Second, 0, true)
	f("s", time.Second, 0, true)
	f("1.5s", time.Second, 0, true)
	f("-1s", time.Second, 0, true)
	f("3 seconds", time.Second, 0, true)
	f("9999999999999d", time.Second, 0, true)
}

func TestHadoopConfGetters(t *testing.T) {
	h := hadoopConf{
		"d": "10s", "d0": "0", "dbad": "x", "blank": "  ",
		"i": " 42 ", "ihex": "0x10", "ibad": "4.2", "ihigh": "101",
		"fl": "2.5", "flneg": "-1", "flnan": "NaN",
		"b": "64k", "bm": "2M", "bbad": "64kb", "bplain": "100",
	}
	if d, err := h.duration("d", time.Minute, time.Millisecond); err != nil || d != 10*time.Second {
		t.Fatalf("duration d = %v, %v", d, err)
	}
	if d, err := h.duration("blank", time.Minute, time.Millisecond); err != nil || d != time.Minute {
		t.Fatalf("a blank value must read as unset: %v, %v", d, err)
	}
	if d, err := h.duration("unset", time.Minute, time.Millisecond); err != nil || d != time.Minute {
		t.Fatalf("duration unset = %v, %v", d, err)
	}
	for _, k := range []string{"d0", "dbad"} {
		_, err := h.duration(k, time.Minute, time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "configuration "+k+": ") {
			t.Fatalf("duration %s: err = %v, want one naming the key", k, err)
		}
	}
	if n, err := h.integer("i", 1, 0, 100); err != nil || n != 42 {
		t.Fatalf("integer i = %v, %v", n, err)
	}
	if n, err := h.integer("ihex", 1, 0, 100); err != nil || n != 16 {
		t.Fatalf("integer ihex = %v, %v", n, err)
	}
	for _, k := range []string{"ibad", "ihigh"} {
		if _, err := h.integer(k, 1, 0, 100); err == nil || !strings.Contains(err.Error(), k) {
			t.Fatalf("integer %s: err = %v", k, err)
		}
	}
	if v, err := h.float("fl", 1); err != nil || v != 2.5 {
		t.Fatalf("float fl = %v, %v", v, err)
	}
	for _, k := range []string{"flneg", "flnan"} {
		if _, err := h.float(k, 1); err == nil {
			t.Fatalf("float %s: no error", k)
		}
	}
	for k, want := range map[string]int64{"b": 64 << 10, "bm": 2 << 20, "bplain": 100, "unset": 7} {
		if n, err := h.bytes(k, 7, 1, 1<<30); err != nil || n != want {
			t.Fatalf("bytes %s = %v, %v; want %v", k, n, err, want)
		}
	}
	if _, err := h.bytes("bbad", 7, 1, 1<<30); err == nil {
		t.Fatal("bytes bbad: no error")
	}
	if _, err := h.bytes("bm", 7, 1, 1<<20); err == nil {
		t.Fatal("bytes bm over the limit: no error")
	}
}

func TestConfFlagsLoad(t *testing.T) {
	dir := t.TempDir()
	site := `<?xml version="1.0"?>
<configuration>
  <property><name>dfs.heartbeat.interval</name><value> 7 </value></property>
  <property><name>dfs.datanode.max.nodes.to.report</name><value>3</value></property>
</configuration>`
	if err := os.WriteFile(filepath.Join(dir, "hdfs-site.xml"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HADOOP_CONF_DIR", "")
	load := func(args ...string) (hadoopConf, error) {
		t.Helper()
		var c confFlags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.register(fs)
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		return c.load()
	}
	h, err := load("-conf", dir, "-D", "dfs.datanode.max.nodes.to.report=9", "-D", "x.y=a=b")
	if err != nil {
		t.Fatal(err)
	}
	if h["dfs.heartbeat.interval"] != " 7 " || h["dfs.datanode.max.nodes.to.report"] != "9" || h["x.y"] != "a=b" {
		t.Fatalf("loaded %v", h)
	}
	t.Setenv("HADOOP_CONF_DIR", dir)
	if h, err := load(); err != nil || h["dfs.heartbeat.interval"] != " 7 " {
		t.Fatalf("HADOOP_CONF_DIR: %v, %v", h, err)
	}
	if _, err := load("-conf", filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing -conf directory must be an error")
	}
	if _, err := load("-D", "novalue"); err == nil {
		t.Fatal("-D without = must be an error")
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "hdfs-site.xml"), []byte("<configuration><property>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := load("-conf", bad); err == nil {
		t.Fatal("a broken hdfs-site.xml must be an error")
	}
}
