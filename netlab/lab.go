package netlab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
)

// Prefix starts the name of every namespace a lab makes.
const Prefix = "splab-"

// MaxHosts is the most hosts one lab holds: they share one /24.
const MaxHosts = 200

// subnet holds the hosts' addresses; they exist only inside the lab's
// namespaces. Host i has 10.213.0.(i+10).
var subnet = netip.MustParsePrefix("10.213.0.0/24")

// Host is one host of a lab.
type Host struct {
	// Namespace is the name of the host's network namespace.
	Namespace string
	// Addr is the host's address on the lab's bridge.
	Addr netip.Addr
	// port is the name of the bridge's veth end that leads to the host,
	// in the switch namespace; the host's own end is "eth0".
	port string
}

// Lab is a set of hosts on one bridge. Its methods are safe for
// concurrent use once Create returned; Close removes everything.
type Lab struct {
	switchNS string
	hosts    []Host
}

// labs counts the labs this process made.
var labs atomic.Int64

// Check reports why this process cannot build a lab, or nil.
func Check() error {
	if os.Geteuid() != 0 {
		return errors.New("netlab: network namespaces need root (CAP_NET_ADMIN); run as root, or use the ack-delay fault, which needs no privileges")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("netlab: %s (iproute2) is not on PATH: %w", tool, err)
		}
	}
	return nil
}

// Create builds a lab of n hosts. On error it removes what it made.
func Create(ctx context.Context, n int) (*Lab, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	if n < 1 || n > MaxHosts {
		return nil, fmt.Errorf("netlab: %d hosts: want 1 to %d", n, MaxHosts)
	}
	// The first lab of a process is splab-PID-; the others add their
	// number, so that labs of one process may live at once.
	tag := Prefix + strconv.Itoa(os.Getpid()) + "-"
	if n := labs.Add(1); n > 1 {
		tag += strconv.FormatInt(n, 10) + "."
	}
	l := &Lab{switchNS: tag + "sw"}
	if err := l.build(ctx, tag, n); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	return l, nil
}

func (l *Lab) build(ctx context.Context, tag string, n int) error {
	if err := run(ctx, "ip", "netns", "add", l.switchNS); err != nil {
		return err
	}
	sw := l.switchNS
	if err := runAll(ctx,
		[]string{"ip", "-n", sw, "link", "set", "lo", "up"},
		[]string{"ip", "-n", sw, "link", "add", "br0", "type", "bridge"},
		[]string{"ip", "-n", sw, "link", "set", "br0", "up"},
	); err != nil {
		return err
	}
	for i := range n {
		h := Host{
			Namespace: tag + "h" + strconv.Itoa(i),
			Addr:      hostAddr(i),
			port:      "h" + strconv.Itoa(i),
		}
		if err := run(ctx, "ip", "netns", "add", h.Namespace); err != nil {
			return err
		}
		l.hosts = append(l.hosts, h)
		cidr := h.Addr.String() + "/" + strconv.Itoa(subnet.Bits())
		if err := runAll(ctx,
			[]string{"ip", "-n", sw, "link", "add", h.port, "type", "veth", "peer", "name", "eth0", "netns", h.Namespace},
			[]string{"ip", "-n", sw, "link", "set", h.port, "master", "br0", "up"},
			[]string{"ip", "-n", h.Namespace, "link", "set", "lo", "up"},
			[]string{"ip", "-n", h.Namespace, "addr", "add", cidr, "dev", "eth0"},
			[]string{"ip", "-n", h.Namespace, "link", "set", "eth0", "up"},
		); err != nil {
			return err
		}
	}
	return nil
}

// hostAddr is the address of host i.
func hostAddr(i int) netip.Addr {
	a := subnet.Addr().As4()
	a[3] = byte(i + 10)
	return netip.AddrFrom4(a)
}

// Hosts returns the lab's hosts, host i at index i.
func (l *Lab) Hosts() []Host { return append([]Host(nil), l.hosts...) }

// Host returns host i; it panics when i is out of range.
func (l *Lab) Host(i int) Host { return l.hosts[i] }

// Command returns a command that runs name with args inside host i's
// namespace (through "ip netns exec", which execs it: the process's pid
// is the program's).
func (l *Lab) Command(ctx context.Context, i int, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", l.hosts[i].Namespace, name}, args...)...)
}

// Close removes the lab's namespaces; their interfaces and qdiscs go with
// them. Processes still running inside keep a namespace alive until they
// exit, so stop them first.
func (l *Lab) Close() error {
	var errs []error
	for _, h := range l.hosts {
		errs = append(errs, deleteNamespace(h.Namespace))
	}
	errs = append(errs, deleteNamespace(l.switchNS))
	l.hosts = nil
	return errors.Join(errs...)
}

func deleteNamespace(name string) error {
	if _, err := os.Stat("/var/run/netns/" + name); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return run(context.Background(), "ip", "netns", "delete", name)
}

// CleanStale removes the namespaces that a lab of a process no longer
// running left behind (a crash, a SIGKILL), and returns their names.
func CleanStale() ([]string, error) {
	entries, err := os.ReadDir("/var/run/netns")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("netlab: list namespaces: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, ok := owner(e.Name())
		if !ok || pid == os.Getpid() || alive(pid) {
			continue
		}
		if err := deleteNamespace(e.Name()); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, errors.Join(errs...)
}

// owner returns the pid in a namespace name of ours ("splab-PID-ROLE").
func owner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0, false
	}
	pid, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

func alive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

func runAll(ctx context.Context, cmds ...[]string) error {
	for _, c := range cmds {
		if err := run(ctx, c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// run runs one ip or tc command; its error carries the command line and
// what the tool printed.
func run(ctx context.Context, name string, args ...string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("netlab: %s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}
