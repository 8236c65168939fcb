package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
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
