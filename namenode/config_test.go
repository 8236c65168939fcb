package namenode

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigIsValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigValidate(t *testing.T) {
	f := func(edit func(*Config), inErr string) {
		t.Helper()
		cfg := DefaultConfig()
		edit(&cfg)
		err := cfg.Validate()
		if inErr == "" {
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), inErr) {
			t.Fatalf("Validate: %v, want an error with %q", err, inErr)
		}
	}
	f(func(c *Config) { c.HeartbeatInterval = 0 }, "dfs.heartbeat.interval must be more than zero")
	f(func(c *Config) { c.HeartbeatInterval = -time.Second }, "dfs.heartbeat.interval must be more than zero")
	f(func(c *Config) { c.OutliersReportInterval = 0 }, "dfs.datanode.outliers.report.interval must be more than zero")
	f(func(c *Config) { c.OutliersReportInterval = 400 * 24 * time.Hour }, "dfs.datanode.outliers.report.interval must be at most")
	f(func(c *Config) { c.HeartbeatRecheckInterval = 0 }, "dfs.namenode.heartbeat.recheck-interval must be more than zero")
	f(func(c *Config) { c.MaxNodesToReport = 0 }, "dfs.datanode.max.nodes.to.report must be between 1 and 100000, got 0")
	f(func(c *Config) { c.MaxSlowPeerCollectNodes = MaxTop + 1 }, "dfs.namenode.max.slowpeer.collect.nodes must be between")
	f(func(c *Config) { c.ShutdownTimeout = 0 }, "shutdown timeout")
	f(func(c *Config) { c.AuthToken = "has space" }, "auth token must be printable ASCII")
	f(func(c *Config) { c.AuthToken = "tab\t" }, "auth token")
	f(func(c *Config) { c.AuthToken = "é" }, "auth token")
	f(func(c *Config) { c.AuthToken = "0123456789abcdef-_.~+/=" }, "")
	// The first broken rule is named.
	f(func(c *Config) { c.HeartbeatInterval, c.MaxNodesToReport = 0, 0 }, "dfs.heartbeat.interval")
}

func TestDeadAfter(t *testing.T) {
	f := func(heartbeat, recheck, want time.Duration) {
		t.Helper()
		if got := DeadAfter(heartbeat, recheck); got != want {
			t.Fatalf("DeadAfter(%v, %v) = %v, want %v", heartbeat, recheck, got, want)
		}
	}
	// Reference: DatanodeManager, heartbeatExpireInterval =
	// 2 * heartbeatRecheckInterval + 10 * 1000 * heartbeatIntervalSeconds.
	f(DefaultHeartbeatInterval, DefaultHeartbeatRecheckInterval, 10*time.Minute+30*time.Second)
	f(time.Second, 15*time.Second, 40*time.Second)
	f(10*time.Second, time.Minute, 3*time.Minute+40*time.Second)
	if got := DefaultConfig().ReportValidity(); got != 15*time.Minute {
		t.Fatalf("default ReportValidity = %v, want 3 × 5m", got)
	}
}

func TestDefaultLocalConfig(t *testing.T) {
	c := DefaultLocalConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// Seconds, not minutes: a report stays valid for 15s.
	if c.HeartbeatInterval != time.Second || c.ReportValidity() != 15*time.Second {
		t.Fatalf("DefaultLocalConfig = %+v", c)
	}
}
