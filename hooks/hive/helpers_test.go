package hive

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// compileHook compiles the hook, the compile-only Hive declarations and the
// driver for Java 8 (Hive 3.1's Java) into a directory and returns it,
// once for all the tests. Warnings fail the test: the hook must compile
// cleanly.
func compileHook(t *testing.T) string {
	t.Helper()
	javac := testenv.Command(t, "javac")
	compiled.once.Do(func() {
		compiled.dir, compiled.err = os.MkdirTemp("", "slowpeer-hook-classes-")
		if compiled.err != nil {
			return
		}
		var sources []string
		for _, root := range []string{"src/main/java", "src/test/stubs", "src/test/driver"} {
			filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(path, ".java") {
					sources = append(sources, path)
				}
				return err
			})
		}
		args := append([]string{"--release", "8", "-Xlint:all", "-Xlint:-options", "-Werror", "-encoding", "UTF-8", "-d", compiled.dir}, sources...)
		if b, err := exec.Command(javac, args...).CombinedOutput(); err != nil {
			compiled.err = fmt.Errorf("javac: %v\n%s", err, b)
		}
	})
	if compiled.err != nil {
		t.Fatal(compiled.err)
	}
	return compiled.dir
}

// compiled is the output of compileHook, shared by the tests and removed
// by TestMain.
var compiled struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if compiled.dir != "" {
		os.RemoveAll(compiled.dir)
	}
	os.Exit(code)
}

// buildSlowpeer builds the slowpeer binary into a temporary directory.
func buildSlowpeer(t *testing.T) string {
	t.Helper()
	gocmd := testenv.Command(t, "go")
	bin := filepath.Join(t.TempDir(), "slowpeer")
	if b, err := exec.Command(gocmd, "build", "-o", bin, "github.com/slowpeer/slowpeer/cmd/slowpeer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return bin
}

// service is a "slowpeer namenode" process on a free loopback port.
type service struct {
	base string // http://127.0.0.1:PORT
	db   string // the path of its SQLite store
	logs string // the path of its stderr
	cmd  *exec.Cmd
	// done is closed once the process exited, with its error in err.
	done chan struct{}
	err  error
}

// startService runs "bin namenode" with the extra arguments and waits until
// it answers GET /v1/hiveservers.
func startService(t *testing.T, bin string, args ...string) *service {
	t.Helper()
	dir := t.TempDir()
	addr := freeAddr(t)
	s := &service{base: "http://" + addr, db: filepath.Join(dir, "hive.db"), logs: filepath.Join(dir, "stderr")}
	logs, err := os.Create(s.logs)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	args = append([]string{"namenode", "-listen", addr, "-store", "sqlite:" + s.db}, args...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "HADOOP_CONF_DIR=")
	s.cmd.Stderr = logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.done = make(chan struct{})
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/v1/hiveservers")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-s.done:
			t.Fatalf("slowpeer %v exited: %v\n%s", args, s.err, s.log(t))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("slowpeer %v does not answer on %s:\n%s", args, addr, s.log(t))
		}
	}
	return s
}

// stop sends SIGTERM, as systemd does, and waits for a clean exit.
func (s *service) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-s.done
	if s.err != nil {
		t.Fatalf("slowpeer namenode exited: %v\n%s", s.err, s.log(t))
	}
}

func (s *service) log(t *testing.T) string {
	b, _ := os.ReadFile(s.logs)
	return string(b)
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// blackhole returns the address of a listener that accepts connections and
// never answers, until the test ends.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				<-ctx.Done()
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		cancel()
		l.Close()
		<-done
	})
	return l.Addr().String()
}

// run is one call of the hook by the driver.
type run struct {
	hook, queryID, queryStr string
	conf                    map[string]string
}

// result is what the driver said of one run, and what the hook logged.
type result struct {
	startMs, endMs int64
	threw          string // "-" when the hook returned
	log            string
}

// runHook calls the hook once for each run in one JVM, through the driver.
func runHook(t *testing.T, classes string, runs []run) []result {
	t.Helper()
	var p strings.Builder
	fmt.Fprintf(&p, "runs=%d\n", len(runs))
	for i, r := range runs {
		n := i + 1
		fmt.Fprintf(&p, "run.%d.hook=%s\nrun.%d.queryId=%s\nrun.%d.queryStr=%s\n", n, r.hook, n, escape(r.queryID), n, escape(r.queryStr))
		keys := make([]string, 0, len(r.conf))
		for k := range r.conf {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&p, "run.%d.conf.%s=%s\n", n, escape(k), escape(r.conf[k]))
		}
	}
	stdout, stderr := runDriver(t, classes, p.String())
	results := make([]result, len(runs))
	for line := range strings.Lines(stdout) {
		var n int
		var r result
		if _, err := fmt.Sscanf(line, "run %d start=%d end=%d threw=", &n, &r.startMs, &r.endMs); err != nil || n < 1 || n > len(runs) {
			t.Fatalf("driver said %q", line)
		}
		_, r.threw, _ = strings.Cut(strings.TrimSpace(line), "threw=")
		results[n-1] = r
	}
	n := 0
	for line := range strings.Lines(stderr) {
		if rest, ok := strings.CutPrefix(line, "--- run "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(rest))
		} else if n >= 1 && n <= len(runs) {
			results[n-1].log += line
		}
	}
	return results
}

// runDriver runs the driver on a properties file of the given content.
func runDriver(t *testing.T, classes, props string) (stdout, stderr string) {
	t.Helper()
	java := testenv.Command(t, "java")
	file := filepath.Join(t.TempDir(), "driver.properties")
	if err := os.WriteFile(file, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(java, "-cp", classes, "io.slowpeer.hive.HookDriver", file)
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java HookDriver: %v\n%s", err, errs.String())
	}
	return string(out), errs.String()
}

// escape writes s as a java.util.Properties value: everything but letters,
// digits and ".-_/" as \uXXXX escapes, UTF-16 as Java's strings.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_/", r)):
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
