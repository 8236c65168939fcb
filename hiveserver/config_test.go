package hiveserver

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	f := func(name string, edit func(*Config), want string) {
		t.Helper()
		c := DefaultConfig()
		edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	f("zero timeout", func(c *Config) { c.QueryTimeout = 0 }, QueryTimeoutKey+" must be at least 1ms")
	f("negative min", func(c *Config) { c.MinRemaining = -time.Second }, MinRemainingKey)
	f("sub-millisecond cost", func(c *Config) { c.DefaultCost = time.Microsecond }, DefaultCostKey)
	f("huge expiry", func(c *Config) { c.ServerExpiry = 100 * 365 * 24 * time.Hour }, ServerExpiryKey+" must be at most")
	f("bad server", func(c *Config) { c.Servers = []string{"hs1:10000", "hs2"} }, `hiveservers: node id "hs2" is not host:port`)
	f("nil source", func(c *Config) { c.Sources = []Source{Static{"a:1"}, nil} }, "source 1 is nil")
}
