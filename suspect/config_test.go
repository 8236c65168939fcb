package suspect

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	f := func(change func(*Config), want string) {
		t.Helper()
		c := DefaultConfig()
		change(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error with %q", err, want)
		}
	}
	f(func(c *Config) { c.Ratio = 1 }, RatioKey)
	f(func(c *Config) { c.Rounds = 0 }, RoundsKey)
	f(func(c *Config) { c.RoundGap = -time.Second }, "round gap")
	f(func(c *Config) { c.Witnesses = 1 }, "witnesses")
	f(func(c *Config) { c.Blocks = 9 }, "blocks")
	f(func(c *Config) { c.Learn = 0 }, "learn")
	f(func(c *Config) { c.MaxPeers = 0 }, "pairs per reporter")
}
