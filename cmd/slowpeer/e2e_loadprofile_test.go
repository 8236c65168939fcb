//go:build e2e

package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The service of TestServiceLoad, profiled (-load-profile DIR): it runs as
// this test binary, in TestLoadServiceProcess, so that go test's own
// -test.cpuprofile, -test.mutexprofile, -test.blockprofile and -test.memprofile write its
// profiles when it stops on SIGTERM.

// loadServiceArgsEnv carries the service's arguments to TestLoadServiceProcess,
// separated by loadArgSep.
const (
	loadServiceArgsEnv = "SLOWPEER_LOAD_SERVICE_ARGS"
	loadArgSep         = "\x1f"
)

// profiledService returns the binary and arguments that run the service
// of args profiled into dir.
func profiledService(t *testing.T, dir string, args []string) (bin string, procArgs []string) {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(loadServiceArgsEnv, strings.Join(args, loadArgSep))
	return os.Args[0], []string{"-test.run=^TestLoadServiceProcess$",
		"-test.cpuprofile=" + filepath.Join(dir, "cpu.pprof"),
		"-test.mutexprofile=" + filepath.Join(dir, "mutex.pprof"),
		"-test.blockprofile=" + filepath.Join(dir, "block.pprof"),
		"-test.memprofile=" + filepath.Join(dir, "mem.pprof"),
		"-test.blockprofilerate=10000", // one event in 10 µs of blocking
		"-test.outputdir=" + dir}
}

// stopProfiled stops the profiled service with SIGTERM, so that it writes
// its profiles, and waits for it.
func stopProfiled(t *testing.T, nn *proc) {
	t.Helper()
	nn.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-nn.exited:
	case <-time.After(30 * time.Second):
		t.Errorf("the profiled service did not stop 30 s after SIGTERM")
	}
}

// TestLoadServiceProcess is the service of a profiled TestServiceLoad;
// without its environment it skips.
func TestLoadServiceProcess(t *testing.T) {
	args := os.Getenv(loadServiceArgsEnv)
	if args == "" {
		t.Skip("runs only as the service of TestServiceLoad -load-profile")
	}
	ctx, stop := signal.NotifyContext(t.Context(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if code := run(ctx, strings.Split(args, loadArgSep), strings.NewReader(""), os.Stdout, os.Stderr); code != 0 {
		t.Fatalf("slowpeer namenode exited %d", code)
	}
}
