//go:build e2e

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/internal/testenv"
	"github.com/slowpeer/slowpeer/netlab"
)

// The processes of TestHAPartition, each in a host of a network lab: the
// registry (etcd or ZooKeeper, killed and started again on its data), the
// replicas and an agent; and an HTTP client that reaches them from inside
// one of the hosts.

// labProc is one process in a lab host, its log in a file.
type labProc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// startLabProc starts name with args in host i; the test's end kills it.
func startLabProc(t *testing.T, lab *netlab.Lab, i int, what, name string, args ...string) *labProc {
	t.Helper()
	p := &labProc{name: what, log: filepath.Join(t.TempDir(), "log"), exited: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = lab.Command(context.Background(), i, name, args...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", what, err)
	}
	go func() { p.cmd.Wait(); logf.Close(); close(p.exited) }()
	t.Cleanup(p.kill)
	return p
}

func (p *labProc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

func (p *labProc) logText() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// cpuSeconds is the CPU time (user and system) the process used so far.
func (p *labProc) cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces, in parentheses).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

// labClient is an HTTP client whose connections start in host i.
func labClient(lab *netlab.Lab, i int) *http.Client {
	return &http.Client{Timeout: time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return lab.DialContext(ctx, i, network, addr)
		},
		MaxIdleConnsPerHost: 2,
	}}
}

// labRegistry is a registry server of the test's own in one lab host,
// which the test kills and starts again on the same data.
type labRegistry struct {
	t     *testing.T
	lab   *netlab.Lab
	host  int
	kind  string
	addr  string // host:port of its clients
	dir   string
	proc  *labProc
	ready func() bool
}

// zooKeeperClasspath is the classpath of Debian's ZooKeeper server, as
// scripts/services starts it.
func zooKeeperClasspath() string {
	var cp []string
	for _, j := range []string{"zookeeper", "zookeeper-jute", "slf4j-api", "slf4j-nop", "netty-handler", "netty-transport",
		"netty-common", "netty-buffer", "netty-codec", "netty-resolver", "netty-transport-native-epoll",
		"netty-transport-native-unix-common", "commons-io", "commons-cli", "metrics-core", "snappy-java"} {
		cp = append(cp, "/usr/share/java/"+j+".jar")
	}
	return strings.Join(cp, ":")
}

func startLabRegistry(t *testing.T, lab *netlab.Lab, host int, kind string, client *http.Client) *labRegistry {
	t.Helper()
	ip := lab.Host(host).Addr.String()
	r := &labRegistry{t: t, lab: lab, host: host, kind: kind, dir: t.TempDir()}
	switch kind {
	case "etcd":
		testenv.Command(t, "etcd")
		r.addr = net.JoinHostPort(ip, "2379")
		r.ready = func() bool {
			resp, err := client.Get("http://" + r.addr + "/health")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return strings.Contains(string(b), `"health":"true"`)
		}
	case "zk":
		testenv.Command(t, "java")
		if _, err := os.Stat("/usr/share/java/zookeeper.jar"); err != nil {
			testenv.Missing(t, "ZooKeeper's jars (libzookeeper-java) are not installed")
		}
		r.addr = net.JoinHostPort(ip, "2181")
		cfg := fmt.Sprintf("tickTime=500\ndataDir=%s\nclientPort=2181\nclientPortAddress=%s\nadmin.enableServer=false\n4lw.commands.whitelist=ruok\n",
			filepath.Join(r.dir, "data"), ip)
		if err := os.WriteFile(filepath.Join(r.dir, "zoo.cfg"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		r.ready = func() bool {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			c, err := lab.DialContext(ctx, host, "tcp", r.addr)
			if err != nil {
				return false
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Second))
			io.WriteString(c, "ruok")
			b, _ := io.ReadAll(c)
			return string(b) == "imok"
		}
	}
	r.start()
	return r
}

func (r *labRegistry) start() {
	r.t.Helper()
	switch r.kind {
	case "etcd":
		r.proc = startLabProc(r.t, r.lab, r.host, "etcd", "etcd", "--name", "lab", "--data-dir", filepath.Join(r.dir, "data"),
			"--listen-client-urls", "http://"+r.addr, "--advertise-client-urls", "http://"+r.addr,
			"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
			"--initial-cluster", "lab=http://127.0.0.1:2380")
	case "zk":
		r.proc = startLabProc(r.t, r.lab, r.host, "zookeeper", "java", "-Xmx256m", "-cp", zooKeeperClasspath(),
			"org.apache.zookeeper.server.ZooKeeperServerMain", filepath.Join(r.dir, "zoo.cfg"))
	}
	testenv.WaitFor(r.t, r.kind+" in the lab", 60*time.Second, r.ready)
}
