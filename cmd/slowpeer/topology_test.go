package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/namenode"
)

// net.topology.table.file.name is read into the service's Topology; a
// file that is missing or not Hadoop's "host rack" table stops the
// service at start.
func TestNamenodeTopology(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "topology.table")
	os.WriteFile(good, []byte("10.0.0.1 /r1\n10.0.0.2 /r2\n"), 0o600)
	bad := filepath.Join(dir, "bad.table")
	os.WriteFile(bad, []byte("10.0.0.1\n"), 0o600)

	cfg := namenode.DefaultConfig()
	cfg.TopologyFile = good
	if err := readTopology(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Topology.Len() != 2 || cfg.Topology.Rack("10.0.0.2:9866") != "/r2" {
		t.Fatalf("topology of %d hosts, 10.0.0.2 in %q", cfg.Topology.Len(), cfg.Topology.Rack("10.0.0.2:9866"))
	}

	t.Setenv("HADOOP_CONF_DIR", "")
	for _, file := range []string{bad, filepath.Join(dir, "missing")} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"namenode", "-listen", "127.0.0.1:0", "-D", namenode.TopologyFileKey + "=" + file},
			strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "configuration "+namenode.TopologyFileKey) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the key", file, code, stderr.String())
		}
	}
}
