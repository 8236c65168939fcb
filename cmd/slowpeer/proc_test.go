package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// The processes of the tests that run the built binary: building it,
// starting one, reading its log, finding free ports.

// buildSlowpeer builds the binary into a temporary directory, with -race
// when the test runs with it (so the build reuses the test's compiled
// packages).
func buildSlowpeer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "slowpeer")
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, "go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
	return bin
}

// proc is one process of the cluster, its log in a file.
type proc struct {
	name   string
	id     string // "host:port"
	cmd    *exec.Cmd
	log    string
	exited chan struct{} // closed when Wait has returned
	err    error         // Wait's result, set before exited is closed
}

// startProc starts bin with args; t.Cleanup kills it if it still runs.
func startProc(t *testing.T, bin, name, id string, args ...string) *proc {
	t.Helper()
	dir := t.TempDir()
	p := &proc{name: name, id: id, log: filepath.Join(dir, "log"), exited: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *proc) logText() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// freePorts returns n loopback addresses whose ports were free a moment
// ago: each was bound on port 0 and closed. Another process may take one
// in between; the cluster then fails to start and says so.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	addrs := make([]string, n)
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		addrs[i] = ln.Addr().String()
	}
	return addrs
}
