package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/disklab"
)

// Every kind reads back as the flag spells it; bad values name -fault.
func TestParseFault(t *testing.T) {
	f := func(spec, want string) {
		t.Helper()
		got, err := ParseFault(spec)
		if err != nil || got.String() != want {
			t.Errorf("ParseFault(%q) = %v, %v; want %s", spec, got, err, want)
		}
	}
	f("none", "none")
	f("ack-delay=50ms", "ack-delay=50ms")
	f("ack-delay=0s", "none")
	f("send-rate=20mbit", "send-rate=20mbit")
	f("receive-rate=100mbit", "receive-rate=100mbit")
	f("link-rate=1gbit", "link-rate=1gbit")
	f("pair-rate=20mbit", "pair-rate=20mbit")
	bad := func(spec, want string) {
		t.Helper()
		if got, err := ParseFault(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFault(%q) = %v, %v; want an error saying %q", spec, got, err, want)
		}
	}
	bad("slow", `-fault "slow": want KIND=VALUE`)
	bad("cpu-rate=1mbit", `unknown kind "cpu-rate"`)
	bad("ack-delay=2s", "-fault ack-delay=2s: want a delay from 0 to 1s")
	bad("ack-delay=-1ms", "want a delay")
	bad("send-rate=fast", `-fault send-rate=fast: rate "fast"`)
	bad("pair-rate=0mbit", "want a number above 0")
	bad("disk-iops=x", "want a whole number of requests per second")
	bad("disk-rate=7bit", "want a rate")
	if got := AckDelay(DefaultSlowDelay); got.String() != "ack-delay=50ms" || got.none() {
		t.Errorf("AckDelay(%v) = %v", DefaultSlowDelay, got)
	}
}

func TestParseDiskFault(t *testing.T) {
	for spec, want := range map[string]string{
		"disk-iops=5":     "disk-iops=5",
		"disk-rate=2mbit": "disk-rate=2mbit",
		"disk-rate=1mbps": "disk-rate=8mbit",
		"disk-iops=0":     "disk-iops=0",
		"disk-rate=0":     "disk-rate=0",
	} {
		f, err := ParseFault(spec)
		if err != nil || f.String() != want {
			t.Errorf("ParseFault(%q) = %v, %v; want %s", spec, f, err, want)
		}
	}
	if f, _ := ParseFault("disk-rate=2mbit"); f.throttle() != (disklab.Throttle{ReadBytesPerSecond: 250000, WriteBytesPerSecond: 250000}) || f.none() {
		t.Errorf("disk-rate=2mbit throttles %+v", f.throttle())
	}
	if f, _ := ParseFault("disk-iops=0"); !f.none() || f.throttle().ReadIOPS != 0 {
		t.Errorf("disk-iops=0: none %v, throttle %+v", f.none(), f.throttle())
	}
}

// A fault that parses prints as a spelling that parses to the same
// fault.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"none", "ack-delay=50ms", "send-rate=20mbit", "pair-rate=1gbit", "disk-iops=5", "disk-rate=2mbit", "disk-rate=0", "=", "ack-delay="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFault(s)
		if err != nil {
			if got != (Fault{}) {
				t.Fatalf("ParseFault(%q) = %+v with error %v, want the zero Fault", s, got, err)
			}
			return
		}
		again, err := ParseFault(got.String())
		if err != nil || again.String() != got.String() || again.none() != got.none() {
			t.Fatalf("ParseFault(%q) = %v, which reads back as %v, %v", s, got, again, err)
		}
		if got.delay < 0 || got.delay > MaxSlowDelay {
			t.Fatalf("ParseFault(%q): delay %v out of range", s, got.delay)
		}
	})
}

// Validate names the first broken rule by its flag; Run starts nothing
// for a Config it refuses.
func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	ok.Report = Report{SlowPeers: noSlowPeers, Diagnosis: noDiagnosis, SlowDisks: noSlowDisks, WriteSlowDisks: noWriteSlowDisks}
	if err := ok.Validate(); err != nil {
		t.Fatalf("DefaultConfig with a Report: %v", err)
	}
	f := func(edit func(c *Config), want string) {
		t.Helper()
		c := ok
		edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want %q", err, want)
		}
		if err := Run(t.Context(), c, nil); err == nil || err.Error() != c.Validate().Error() {
			t.Errorf("Run = %v, want Validate's error", err)
		}
	}
	f(func(c *Config) { c.DataNodes = 3 }, "-datanodes 3: want 4 to 64")
	f(func(c *Config) { c.DataNodes = 65 }, "-datanodes 65: want 4 to 64")
	f(func(c *Config) { c.Slow = 12 }, "-slow 12: want 0 to 11")
	f(func(c *Config) { c.Slow = -1 }, "-slow -1")
	f(func(c *Config) { c.Fault = AckDelay(2 * time.Second) }, "-fault ack-delay=2s: want a delay from 0 to 1s")
	f(func(c *Config) { c.Duration = -time.Second }, "-duration -1s is negative")
	f(func(c *Config) { c.Fault, _ = ParseFault("disk-iops=5"); c.Lab = true }, "-fault disk-iops=5 runs on loopback: drop -lab")
	f(func(c *Config) { c.Report.SlowDisks = nil }, "a Report function is missing")
}
