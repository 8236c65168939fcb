//go:build e2e

package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The service of TestServiceLoad, profiled (-load-profile DIR): it runs as
// this test binary, in TestLoadServiceProcess, so that go test's own
// -test.cpuprofile, -test.mutexprofile, -test.blockprofile and -test.memprofile write its
// profiles when it stops on SIGTERM. At the end of the window it writes
// the live heap as well (heap.pprof, on SIGUSR1): the memory profile
// written at the stop no longer holds the connections.

// loadServiceArgsEnv carries the service's arguments to TestLoadServiceProcess,
// separated by loadArgSep.
const (
	loadServiceArgsEnv = "SLOWPEER_LOAD_SERVICE_ARGS"
	loadHeapProfileEnv = "SLOWPEER_LOAD_HEAP_PROFILE"
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
	t.Setenv(loadHeapProfileEnv, filepath.Join(dir, "heap.pprof"))
	return os.Args[0], []string{"-test.run=^TestLoadServiceProcess$",
		"-test.cpuprofile=" + filepath.Join(dir, "cpu.pprof"),
		"-test.mutexprofile=" + filepath.Join(dir, "mutex.pprof"),
		"-test.blockprofile=" + filepath.Join(dir, "block.pprof"),
		"-test.memprofile=" + filepath.Join(dir, "mem.pprof"),
		"-test.blockprofilerate=10000", // one event in 10 µs of blocking
		"-test.outputdir=" + dir}
}

// profileHeap has the profiled service write its live heap, and gives it
// a few seconds to.
func profileHeap(nn *proc) {
	nn.cmd.Process.Signal(syscall.SIGUSR1)
	time.Sleep(3 * time.Second)
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
	heap := make(chan os.Signal, 1)
	signal.Notify(heap, syscall.SIGUSR1)
	defer signal.Stop(heap)
	go func() {
		for range heap {
			writeHeapProfile(t, os.Getenv(loadHeapProfileEnv))
		}
	}()
	if code := run(ctx, strings.Split(args, loadArgSep), strings.NewReader(""), os.Stdout, os.Stderr); code != 0 {
		t.Fatalf("slowpeer namenode exited %d", code)
	}
}

// writeHeapProfile writes the heap as the collector it runs first leaves
// it to path, and the runtime's memory by class (runtime/metrics'
// /memory/classes/) to path's sibling memory.txt.
func writeHeapProfile(t *testing.T, path string) {
	var classes []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") {
			classes = append(classes, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(classes)
	var b strings.Builder
	for _, c := range classes {
		fmt.Fprintf(&b, "%-50s %8.1f MiB\n", c.Name, float64(c.Value.Uint64())/(1<<20))
	}
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
	}
	err = errors.Join(err, os.WriteFile(filepath.Join(filepath.Dir(path), "memory.txt"), []byte(b.String()), 0o644))
	if err != nil {
		t.Errorf("heap profile: %v", err)
	}
}
