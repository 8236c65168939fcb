package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/disklab"
	"github.com/slowpeer/slowpeer/netlab"
)

// Bad command lines exit 2 with a message that names the flag and start
// nothing; -h prints the flags and exits 0.
func TestDemoUsage(t *testing.T) {
	f := func(args []string, code int, want ...string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		got := run(context.Background(), append([]string{"demo"}, args...), strings.NewReader(""), &stdout, &stderr)
		if got != code || stdout.Len() != 0 {
			t.Fatalf("%v: exit %d, stdout %q; want %d and nothing", args, got, stdout.String(), code)
		}
		for _, w := range want {
			if !strings.Contains(stderr.String(), w) {
				t.Fatalf("%v: stderr %q does not say %q", args, stderr.String(), w)
			}
		}
	}
	f([]string{"-h"}, 0, "usage: slowpeer demo", "-datanodes N", "-slow INDEX", "-fault KIND=VALUE", "-slow-delay D", "-duration D", "-json", "-lab")
	f([]string{"-datanodes", "3"}, 2, "-datanodes 3: want 4 to 64")
	f([]string{"-datanodes", "65"}, 2, "-datanodes 65: want 4 to 64")
	f([]string{"-datanodes", "x"}, 2, "invalid value")
	f([]string{"-slow", "12"}, 2, "-slow 12: want 0 to 11")
	f([]string{"-datanodes", "5", "-slow", "5"}, 2, "-slow 5: want 0 to 4")
	f([]string{"-slow", "-1"}, 2, "-slow -1")
	f([]string{"-slow-delay", "-1ms"}, 2, "-slow-delay -1ms: want 0 to 1s")
	f([]string{"-slow-delay", "2s"}, 2, "-slow-delay 2s: want 0 to 1s")
	f([]string{"-slow-delay", "50"}, 2, "invalid value")
	f([]string{"-duration", "-1s"}, 2, "-duration -1s is negative")
	f([]string{"-fault", "slow"}, 2, `-fault "slow": want KIND=VALUE`)
	f([]string{"-fault", "cpu-rate=1mbit"}, 2, `unknown kind "cpu-rate"`)
	f([]string{"-fault", "ack-delay=2s"}, 2, "-fault ack-delay=2s: want a delay from 0 to 1s")
	f([]string{"-fault", "ack-delay=50"}, 2, "-fault ack-delay=50: want a delay")
	f([]string{"-fault", "send-rate=fast"}, 2, `-fault send-rate=fast: rate "fast"`)
	f([]string{"-fault", "pair-rate=0mbit"}, 2, "want a number above 0")
	f([]string{"-nope"}, 2, "flag provided but not defined: -nope")
	f([]string{"extra"}, 2, `unexpected argument "extra"`)
}

// TestDemoLabNeedsRoot: without what a lab needs, the demo says so and
// starts nothing.
func TestDemoLabNeedsRoot(t *testing.T) {
	err := netlab.Check()
	if err == nil {
		t.Skip("netlab works here; the message is tested where it does not")
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"demo", "-fault", "send-rate=20mbit"}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "demo -fault send-rate=20mbit: netlab:") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestDemoDiskFaultUsage: a disk fault's bad values, and -lab with one,
// are usage errors; without root it says what is missing and starts
// nothing.
func TestDemoDiskFaultUsage(t *testing.T) {
	f := func(args []string, want string) {
		t.Helper()
		var stdout, stderr strings.Builder
		code := run(t.Context(), append([]string{"demo"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("demo %v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
	f([]string{"-fault", "disk-iops=x"}, "want a whole number of requests per second")
	f([]string{"-fault", "disk-iops=-1"}, "want a whole number")
	f([]string{"-fault", "disk-rate=fast"}, "want a rate as tc writes it")
	f([]string{"-fault", "disk-rate=7bit"}, "want a rate")
	if disklab.Check() == nil {
		f([]string{"-lab", "-fault", "disk-iops=5"}, "runs on loopback: drop -lab")
		return
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"demo", "-fault", "disk-iops=5"}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "demo -fault disk-iops=5: disklab:") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
