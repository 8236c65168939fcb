//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/demo"
	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/netlab"
)

// labDemo runs "demo -json" with args in the network lab and returns its
// result. Without root or iproute2 the test is skipped (it fails under
// SLOWPEER_REQUIRE_SERVICES=1). It checks that the demo left no
// namespace behind, and removes any it did.
func labDemo(t *testing.T, args ...string) demo.Result {
	t.Helper()
	if err := netlab.Check(); err != nil {
		testenv.Missing(t, err.Error())
	}
	out := runDemoTest(t, "never printed", 90*time.Second, append([]string{"-json", "-datanodes", "8"}, args...)...)
	var r demo.Result
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("demo %v: %q is not the result object: %v", args, out, err)
	}
	entries, _ := os.ReadDir("/var/run/netns")
	for _, e := range entries {
		if pid, ok := owner(e.Name()); ok && pid == os.Getpid() {
			t.Errorf("namespace %s left behind", e.Name())
			if out, err := exec.Command("ip", "netns", "delete", e.Name()).CombinedOutput(); err != nil {
				t.Errorf("remove namespace %s: %v: %s", e.Name(), err, out)
			}
		}
	}
	return r
}

// owner returns the pid in a lab namespace's name ("splab-PID-ROLE").
func owner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, netlab.Prefix)
	if !ok {
		return 0, false
	}
	pid, _, _ := strings.Cut(rest, "-")
	n := 0
	for _, c := range pid {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, pid != ""
}

// TestDemoLabFaults: at the production defaults, each kernel-made fault
// enters the slow set within the minute of -json, classified as what it
// is; nothing else enters it.
func TestDemoLabFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster in network namespaces for up to a minute a fault")
	}
	for fault, kind := range map[string]string{
		"receive-rate=100mbit": "inbound",
		"send-rate=20mbit":     "outbound",
		"pair-rate=20mbit":     "link", // the link between the slow node and its peer
	} {
		t.Run(fault, func(t *testing.T) {
			r := labDemo(t, "-fault", fault, "-slow", "2")
			b, _ := json.Marshal(r)
			t.Logf("%s: %s", fault, b)
			if r.Injected == nil || r.Injected.Fault != fault || r.Injected.Node != "10.213.0.13:9866" {
				t.Fatalf("injected %+v, want %s on agent 2 (10.213.0.13:9866)", r.Injected, fault)
			}
			if !r.Found || r.Kind == nil || r.TimeToDetectSeconds == nil {
				t.Fatalf("result %s: want it in the slow set within a minute", b)
			}
			if *r.Kind != kind {
				t.Errorf("result %s: in the slow set as %s, want %s", b, *r.Kind, kind)
			}
			if len(r.FalsePositives) > 0 {
				t.Errorf("false positives %q", r.FalsePositives)
			}
		})
	}
}

// TestDemoLabHealthy: agents in namespaces without a fault put nobody in
// the slow set.
func TestDemoLabHealthy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster in network namespaces for 40 s")
	}
	r := labDemo(t, "-lab", "-fault", "none", "-duration", "40s")
	if r.Injected != nil || r.Found || r.Kind != nil || len(r.FalsePositives) > 0 {
		t.Fatalf("healthy lab: %+v, want nobody reported", r)
	}
}
