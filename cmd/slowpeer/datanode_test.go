package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/datanode"
	"github.com/slowpeer/slowpeer/reports"
)

// Bad command lines and bad values exit 2 with a message that names the
// flag or the key and the value, and start nothing.
func TestDatanodeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	spaced := filepath.Join(dir, "spaced")
	os.WriteFile(spaced, []byte("two words\n"), 0o600)
	f := func(args []string, want ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"datanode"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 {
			t.Fatalf("%v: exit %d, stdout %q; want 2 and nothing", args, code, stdout.String())
		}
		for _, w := range want {
			if !strings.Contains(stderr.String(), w) {
				t.Fatalf("%v: stderr %q does not say %q", args, stderr.String(), w)
			}
		}
	}
	ok := []string{"-id", "127.0.0.1:9866", "-namenode", "http://127.0.0.1:1"}
	with := func(extra ...string) []string { return append(append([]string(nil), ok...), extra...) }
	f(nil, "-id HOST:PORT is required")
	f([]string{"-id", "127.0.0.1:9866"}, "-namenode SERVICES is required")
	f([]string{"-id", "dn1", "-namenode", "http://nn"}, `id: node id "dn1" is not host:port`)
	f([]string{"-id", "h:1", "-namenode", "nn:9870"}, `namenode: "nn:9870" is not an http or https URL`)
	f([]string{"-id", "h:1", "-namenode", "http://a,,http://b"}, "-namenode", "entry 2 is empty")
	f([]string{"-id", "h:1", "-namenode", "zk://"}, "-namenode", "an empty server")
	f([]string{"-id", "h:1", "-namenode", "etcd://h:1/a/../b"}, "-namenode", "root")
	f(with("-peers", "10.0.0.3:9866,10.0.0.4"), `peers: node id "10.0.0.4" is not host:port`)
	f(with("-D", "dfs.heartbeat.interval=abc"), "configuration dfs.heartbeat.interval", `"abc"`)
	f(with("-D", "dfs.datanode.outliers.report.interval=0"), "dfs.datanode.outliers.report.interval", `"0"`)
	f(with("-D", "dfs.datanode.min.outlier.detection.nodes=0"), "dfs.datanode.min.outlier.detection.nodes: 0 is outside")
	f(with("-D", "dfs.datanode.slowpeer.low.threshold.ms=-3"), "dfs.datanode.slowpeer.low.threshold.ms", `"-3"`)
	f(with("-D", "slowpeer.probe.packet.size=64m"), "slowpeer.probe.packet.size: 67108864 is outside")
	f(with("-D", "slowpeer.probe.packets=100"), "slowpeer.probe.packets 100", "more than slowpeer.probe.max.bandwidth")
	f(with("-D", "slowpeer.rolling.windows=x"), "slowpeer.rolling.windows", `"x"`)
	f(with("-D", "slowpeer.heartbeat.max.backoff=1s"), "slowpeer.heartbeat.max.backoff: 1s is shorter")
	f(with("-D", "novalue"), `want key=value, got "novalue"`)
	f(with("-hadoop-jmx", "http://dn:9864/jmx", "-peers", "10.0.0.3:9866"), "two latency sources")
	f(with("-fault-receive-delay", "-1s"), "fault-receive-delay: -1s is negative")
	f(with("-fault-receive-delay", "50"), "invalid value")
	f(with("-auth-token-file", filepath.Join(dir, "nope")), "-auth-token-file", "no such file")
	f(with("-auth-token-file", empty), "holds no token")
	f(with("-auth-token-file", spaced), "one word")
	f(with("-conf", filepath.Join(dir, "nope")), "read configuration")
	f(with("extra"), `unexpected argument "extra"`)
	f(with("-volumes", filepath.Join(dir, "nope")), "volume "+filepath.Join(dir, "nope"), "no such file or directory")
	f(with("-volumes", empty), "volume "+empty+": not a directory")
	f(with("-volumes", "[FLOPPY]"+dir), "-volumes", `unknown storage type "FLOPPY"`)
	f(with("-D", "dfs.datanode.data.dir=data/1"), "dfs.datanode.data.dir", "not an absolute path")
	f(with("-D", "dfs.datanode.data.dir="+dir+","+dir), "listed twice")
	f(with("-D", "slowpeer.disk.probe.budget=2s"), "slowpeer.disk.probe.budget", "more than 1s")
	f(with("-D", "dfs.datanode.min.outlier.detection.disks=0"), "dfs.datanode.min.outlier.detection.disks: 0 is outside")
}

// Reference: Configuration.getTimeDuration — dfs.heartbeat.interval is
// read in seconds when bare (DFSConfigKeys), the other durations in ms.
func TestDatanodeConf(t *testing.T) {
	f := func(conf hadoopConf, check func(datanode.Config) bool) {
		t.Helper()
		cfg := datanode.DefaultConfig()
		if err := datanodeConf(conf, &cfg); err != nil {
			t.Fatalf("datanodeConf(%v): %v", conf, err)
		}
		if !check(cfg) {
			t.Fatalf("datanodeConf(%v) = %+v", conf, cfg)
		}
	}
	f(hadoopConf{}, func(c datanode.Config) bool {
		d := datanode.DefaultConfig()
		return c.HeartbeatInterval == d.HeartbeatInterval && c.ProbePacketBytes == d.ProbePacketBytes &&
			c.LowThreshold == d.LowThreshold && c.MinOutlierDetectionSamples == d.MinOutlierDetectionSamples
	})
	f(hadoopConf{"dfs.heartbeat.interval": "5"}, func(c datanode.Config) bool { return c.HeartbeatInterval == 5*time.Second })
	f(hadoopConf{"dfs.heartbeat.interval": "500ms"}, func(c datanode.Config) bool { return c.HeartbeatInterval == 500*time.Millisecond })
	f(hadoopConf{"dfs.datanode.outliers.report.interval": "1800000"}, func(c datanode.Config) bool { return c.ReportInterval == 30*time.Minute })
	f(hadoopConf{"dfs.datanode.outliers.report.interval": "10s"}, func(c datanode.Config) bool { return c.ReportInterval == 10*time.Second })
	f(hadoopConf{"dfs.datanode.peer.metrics.min.outlier.detection.samples": "50"}, func(c datanode.Config) bool {
		return c.MinOutlierDetectionSamples == 50
	})
	f(hadoopConf{"dfs.datanode.min.outlier.detection.nodes": "3"}, func(c datanode.Config) bool { return c.MinOutlierDetectionNodes == 3 })
	f(hadoopConf{"dfs.datanode.slowpeer.low.threshold.ms": "2.5"}, func(c datanode.Config) bool { return c.LowThreshold == 2500*time.Microsecond })
	f(hadoopConf{"dfs.datanode.slowpeer.low.threshold.ms": "0"}, func(c datanode.Config) bool { return c.LowThreshold == 0 })
	f(hadoopConf{"slowpeer.rolling.window": "60000", "slowpeer.rolling.windows": "10"}, func(c datanode.Config) bool {
		return c.RollingWindow == time.Minute && c.RollingWindows == 10
	})
	f(hadoopConf{"slowpeer.probe.interval": "250", "slowpeer.probe.packets": "4", "slowpeer.probe.packet.size": "16k"},
		func(c datanode.Config) bool {
			return c.ProbeInterval == 250*time.Millisecond && c.ProbePackets == 4 && c.ProbePacketBytes == 16384
		})
	f(hadoopConf{"slowpeer.probe.max.bandwidth": "10m", "slowpeer.probe.timeout": "2s"}, func(c datanode.Config) bool {
		return c.ProbeMaxBytesPerSecond == 10<<20 && c.ProbeTimeout == 2*time.Second
	})
	f(hadoopConf{"dfs.datanode.data.dir": "[SSD]file:///data/1, /data/2", "dfs.datanode.min.outlier.detection.disks": "3",
		"dfs.datanode.slowdisk.low.threshold.ms": "50", "slowpeer.disk.stats.interval": "10s",
		"slowpeer.disk.probe.interval": "0", "slowpeer.disk.probe.budget": "500us"}, func(c datanode.Config) bool {
		return len(c.Volumes) == 2 && c.Volumes[0].Path == "/data/1" && c.Volumes[0].StorageType == "SSD" &&
			c.Volumes[1].Path == "/data/2" && c.MinOutlierDetectionDisks == 3 && c.SlowDiskLowThreshold == 50*time.Millisecond &&
			c.DiskStatsInterval == 10*time.Second && c.DiskProbeInterval == 0 && c.DiskProbeBudget == 500*time.Microsecond
	})
	f(hadoopConf{"slowpeer.hadoop.jmx.interval": "30s", "slowpeer.hadoop.jmx.peer.port": "9866", "slowpeer.heartbeat.max.backoff": "1m"},
		func(c datanode.Config) bool {
			return c.HadoopJMXInterval == 30*time.Second && c.HadoopJMXPeerPort == 9866 && c.MaxRetryBackoff == time.Minute
		})
}

// syncBuffer is a bytes.Buffer safe for the agent's log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The agent runs until its context ends (main's signal context), sends
// heartbeats with the token from the file, and exits 0.
func TestDatanodeRuns(t *testing.T) {
	type beat struct {
		hb   reports.Heartbeat
		auth string
	}
	beats := make(chan beat, 100)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var hb reports.Heartbeat
		json.NewDecoder(r.Body).Decode(&hb)
		select {
		case beats <- beat{hb, r.Header.Get("Authorization")}:
		default:
		}
		w.Write([]byte(`{"slow":false}`))
	}))
	defer svc.Close()
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	id := ln.Addr().String()
	ln.Close() // the agent listens there itself (its -id is its data port)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"datanode", "-id", id, "-namenode", svc.URL, "-auth-token-file", token,
			"-peers", id + ",127.0.0.1:1", "-D", "dfs.heartbeat.interval=100ms"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for n := 0; n < 2; n++ {
		select {
		case b := <-beats:
			if b.hb.Node != id || b.auth != "Bearer s3cret" || b.hb.HasReport() {
				t.Fatalf("heartbeat %d: %+v with %q", n, b.hb, b.auth)
			}
		case code := <-done:
			t.Fatalf("datanode exited %d early: %s", code, stderr.String())
		case <-timeout.C:
			t.Fatalf("no heartbeat: %s", stderr.String())
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d after the context ended, want 0: %s", code, stderr.String())
	}
	for _, want := range []string{"agent started", "dataPort=" + id, "first slow-peer report waits for data", "agent stopped"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("log lacks %q:\n%s", want, stderr.String())
		}
	}
}

// FuzzDatanodeConfig: whatever the flags and a -D value, the agent's
// configuration is an error or a Config that passes Validate.
func FuzzDatanodeConfig(f *testing.F) {
	f.Add("10.0.0.2:9866", "http://nn1:9870,http://nn2:9870", "10.0.0.3:9866,10.0.0.4:9866", "", "slowpeer.probe.packet.size", "64k")
	f.Add("h:1", "https://nn", "", "http://dn:9864/jmx", "dfs.heartbeat.interval", "5")
	f.Add("h:1", "http://nn", "a:1,,b:2", "", "dfs.datanode.slowpeer.low.threshold.ms", "1e308")
	f.Fuzz(func(t *testing.T, id, namenodes, peers, jmx, key, value string) {
		fl := datanodeFlags{id: id, namenodes: namenodes, peers: peers, hadoopJMX: jmx}
		fl.conf.defs = []string{key + "=" + value}
		cfg, err := fl.config()
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config() accepted what Validate refuses: %v", err)
		}
	})
}
