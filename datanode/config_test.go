package datanode

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	base := func() Config {
		c := DefaultConfig()
		c.ID, c.NameNodes = "10.0.0.2:9866", []string{"http://nn1:9870", "https://nn2:9871/slowpeer"}
		return c
	}
	f := func(edit func(*Config), wantErr string) {
		t.Helper()
		c := base()
		edit(&c)
		err := c.Validate()
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("Validate = %v, want nil", err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("Validate = %v, want an error with %q", err, wantErr)
		}
	}
	f(func(*Config) {}, "")
	f(func(c *Config) { c.Peers = []string{"10.0.0.2:9866", "10.0.0.3:9866"}; c.DataListen = ":9866" }, "")
	f(func(c *Config) { c.HadoopJMX = "http://dn:9864/jmx?qry=Hadoop:service=DataNode,name=DataNodeInfo" }, "")
	f(func(c *Config) { c.ID = "" }, "id: missing node id")
	f(func(c *Config) { c.ID = "dn1" }, "id: node id \"dn1\" is not host:port")
	f(func(c *Config) { c.NameNodes = nil }, "at least one")
	f(func(c *Config) { c.NameNodes = []string{"nn1:9870"} }, "not an http or https URL")
	f(func(c *Config) { c.NameNodes = []string{"http://"} }, "has no host")
	f(func(c *Config) { c.NameNodes = []string{"http://nn1/?x=1"} }, "has a query")
	f(func(c *Config) { c.NameNodes = []string{"http://u:p@nn1/"} }, "user information")
	f(func(c *Config) { c.NameNodes = []string{"http://nn1", "http://nn1"} }, "listed twice")
	f(func(c *Config) { c.NameNodes = []string{"http://nn 1"} }, "not a URL")
	f(func(c *Config) { c.DataListen = "9866" }, "data-listen")
	f(func(c *Config) { c.Peers = []string{"10.0.0.3"} }, "peers: node id")
	f(func(c *Config) { c.Peers = []string{"10.0.0.3:1", "10.0.0.3:1"} }, "peers: \"10.0.0.3:1\" is listed twice")
	f(func(c *Config) { c.HadoopJMX = "dn:9864/jmx" }, "hadoop-jmx")
	f(func(c *Config) { c.HadoopJMX, c.Peers = "http://dn:9864/jmx", []string{"a:1"} }, "two latency sources")
	f(func(c *Config) { c.HadoopJMX, c.PeerMetrics = "http://dn:9864/jmx", NewPeerMetrics(*c) }, "two latency sources")
	f(func(c *Config) { c.HadoopJMX, c.HadoopJMXInterval = "http://dn:9864/jmx", 0 }, "slowpeer.hadoop.jmx.interval")
	f(func(c *Config) { c.HadoopJMXPeerPort = 65536 }, "slowpeer.hadoop.jmx.peer.port")
	f(func(c *Config) { c.FaultReceiveDelay = -1 }, "fault-receive-delay")
	f(func(c *Config) { c.HeartbeatInterval = 0 }, "dfs.heartbeat.interval")
	f(func(c *Config) { c.ReportInterval = -time.Second }, "dfs.datanode.outliers.report.interval")
	f(func(c *Config) { c.MaxRetryBackoff = time.Second }, "slowpeer.heartbeat.max.backoff: 1s is shorter than dfs.heartbeat.interval 3s")
	f(func(c *Config) { c.MinOutlierDetectionSamples = -1 }, "dfs.datanode.peer.metrics.min.outlier.detection.samples")
	f(func(c *Config) { c.MinOutlierDetectionNodes = 0 }, "dfs.datanode.min.outlier.detection.nodes")
	f(func(c *Config) { c.LowThreshold = -1 }, "dfs.datanode.slowpeer.low.threshold.ms")
	f(func(c *Config) { c.RollingWindow = 0 }, "slowpeer.rolling.window:")
	f(func(c *Config) { c.RollingWindows = 0 }, "slowpeer.rolling.windows")
	f(func(c *Config) { c.ProbeInterval = 0 }, "slowpeer.probe.interval")
	f(func(c *Config) { c.ProbePackets = 0 }, "slowpeer.probe.packets")
	f(func(c *Config) { c.ProbePacketBytes = MaxProbePacketBytes + 1 }, "slowpeer.probe.packet.size")
	f(func(c *Config) { c.ProbeTimeout = 0 }, "slowpeer.probe.timeout")
	f(func(c *Config) { c.ProbeMaxBytesPerSecond = 0 }, "slowpeer.probe.max.bandwidth")
	f(func(c *Config) { c.ProbeCoverage = 0 }, "slowpeer.probe.coverage: 0s is not positive")
	f(func(c *Config) { c.ProbeConfirmBudget = 0 }, "")
	f(func(c *Config) { c.ProbeConfirmBudget = -1 }, "slowpeer.probe.confirm.budget: -1 blocks a minute is outside [0, 6000]")
	f(func(c *Config) { c.ProbeConfirmBudget = MaxProbeConfirmBudget + 1 }, "slowpeer.probe.confirm.budget")
	// The bandwidth bound: 64 packets of 64 KiB a second is 4 MiB/s, the
	// default bound; one more packet is over it.
	f(func(c *Config) { c.ProbePackets = 64 }, "")
	f(func(c *Config) { c.ProbePackets = 65 }, "more than slowpeer.probe.max.bandwidth 4194304")
	f(func(c *Config) { c.ProbePacketBytes = 1 << 20 }, "more than slowpeer.probe.max.bandwidth")
	f(func(c *Config) { c.ProbeInterval = 100 * time.Millisecond }, "more than slowpeer.probe.max.bandwidth")
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	// The defaults of DESIGN.md's table, but for the report interval,
	// the samples and the rolling windows, which slowpeer chose from its
	// simulated clusters (DETECTION.md).
	if c.HeartbeatInterval != 3*time.Second || c.ReportInterval != 5*time.Minute ||
		c.MinOutlierDetectionSamples != 20 || c.MinOutlierDetectionNodes != 10 ||
		c.LowThreshold != 5*time.Millisecond || c.RollingWindow != time.Minute || c.RollingWindows != 3 ||
		c.ProbeInterval != time.Second || c.ProbePackets != 16 || c.ProbePacketBytes != 65536 ||
		c.ProbeCoverage != 30*time.Second || c.ProbeConfirmBudget != 60 {
		t.Fatalf("DefaultConfig = %+v", c)
	}
	if got := c.ProbeBytesPerSecond(); got != 1<<20 {
		t.Fatalf("ProbeBytesPerSecond = %v, want 1 MiB", got)
	}
}

func TestNewPeerMetricsPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "BUG: ") {
			t.Fatalf("recover() = %v, want a BUG panic", r)
		}
	}()
	c := DefaultConfig()
	c.RollingWindows = 0
	NewPeerMetrics(c)
}

func TestDefaultLocalConfig(t *testing.T) {
	c := DefaultLocalConfig()
	c.ID, c.NameNodes = "127.0.0.1:9866", []string{"http://127.0.0.1:9871"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// 8 packets of 16 KiB every 50 ms: 2.5 MiB/s, under the 4 MiB/s bound.
	if got := c.ProbeBytesPerSecond(); got != 2.5*(1<<20) {
		t.Fatalf("ProbeBytesPerSecond = %v, want 2.5 MiB", got)
	}
	if c.HeartbeatInterval != time.Second || c.ReportInterval != 5*time.Second {
		t.Fatalf("DefaultLocalConfig = %+v", c)
	}
}
