package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/datanode"
)

// dfs.datanode.http.address and dfs.datanode.peer.stats.enabled, with
// -http-listen winning over the key.
func TestDatanodeHTTPConf(t *testing.T) {
	f := func(conf hadoopConf, flagAddr, wantAddr string, wantStats bool) {
		t.Helper()
		cfg := datanode.DefaultConfig()
		if err := datanodeConf(conf, &cfg); err != nil {
			t.Fatalf("datanodeConf(%v): %v", conf, err)
		}
		if flagAddr != "" {
			cfg.HTTPListen = flagAddr
		}
		if cfg.HTTPListen != wantAddr || cfg.PeerStatsEnabled != wantStats {
			t.Fatalf("datanodeConf(%v): HTTPListen %q, PeerStatsEnabled %v; want %q, %v", conf, cfg.HTTPListen, cfg.PeerStatsEnabled, wantAddr, wantStats)
		}
	}
	f(hadoopConf{}, "", "", true) // no HTTP port unless asked for
	f(hadoopConf{"dfs.datanode.http.address": " 0.0.0.0:9864 "}, "", "0.0.0.0:9864", true)
	f(hadoopConf{"dfs.datanode.http.address": "0.0.0.0:9864"}, "127.0.0.1:19864", "127.0.0.1:19864", true)
	f(hadoopConf{"dfs.datanode.peer.stats.enabled": "FALSE"}, "", "", false)
	f(hadoopConf{"dfs.datanode.peer.stats.enabled": "true"}, "", "", true)

	bad := func(args []string, want string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append([]string{"datanode", "-id", "127.0.0.1:9866", "-namenode", "http://127.0.0.1:1"}, args...)
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), want) {
			t.Fatalf("%v: exit %d, stderr %q; want 2 with %q", args, code, stderr.String(), want)
		}
	}
	bad([]string{"-D", "dfs.datanode.peer.stats.enabled=yes"}, `configuration dfs.datanode.peer.stats.enabled: "yes" is not true or false`)
	bad([]string{"-http-listen", "9864"}, `http-listen (dfs.datanode.http.address): "9864" is not host:port`)
	bad([]string{"-D", "dfs.datanode.http.address=nohost"}, `dfs.datanode.http.address): "nohost" is not host:port`)
}
