package disklab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/diskstat"
	"github.com/slowpeer/slowpeer/internal/testenv"
)

// newLab makes a lab for the test and closes it at the end, also when the
// test fails. Without root the test is skipped, or fails under
// SLOWPEER_REQUIRE_SERVICES=1 (CI runs as root).
func newLab(t *testing.T) *Lab {
	t.Helper()
	if err := Check(); err != nil {
		testenv.Missing(t, err.Error())
	}
	if _, err := CleanStale(); err != nil {
		t.Logf("clean stale labs: %v", err)
	}
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close the lab: %v", err)
		}
	})
	return l
}

// directWrites writes n blocks of 4 KiB to a new file in dir, each with
// O_DIRECT and O_DSYNC, and returns how long they took.
func directWrites(t *testing.T, dir string, n int) time.Duration {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "probe"), os.O_CREATE|os.O_WRONLY|syscall.O_DIRECT|syscall.O_DSYNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := aligned(4096)
	start := time.Now()
	for i := range n {
		if _, err := f.WriteAt(buf, int64(i)*4096); err != nil {
			t.Fatal(err)
		}
	}
	return time.Since(start)
}

// aligned returns n bytes aligned to 4096, as O_DIRECT wants them.
func aligned(n int) []byte {
	b := make([]byte, n+4096)
	off := int(4096 - uintptr(unsafe.Pointer(&b[0]))%4096)
	return b[off%4096 : off%4096+n]
}

func writeMs(t *testing.T, d diskstat.Device) uint64 {
	t.Helper()
	var r diskstat.Reader
	defer r.Close()
	out, found := make([]diskstat.Counters, 1), make([]bool, 1)
	if err := r.Read([]diskstat.Device{d}, out, found); err != nil || !found[0] {
		t.Fatalf("read the counters of %v: %v (found %v)", d, err, found[0])
	}
	return out[0].WriteMs
}

// The throttle holds requests before the device accounts them: the
// throttled device's own write time misses the wait.
// Reference: the kernel's blk-throttle (blk_throtl_bio before
// blk_account_io_start).
func TestThrottleUnseenByItsDevice(t *testing.T) {
	l := newLab(t)
	v, err := l.Volume(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Join(); err != nil {
		t.Fatal(err)
	}
	if err := l.Throttle(v.Device, Throttle{WriteIOPS: 20}); err != nil {
		t.Fatal(err)
	}
	before := writeMs(t, v.Device)
	took := directWrites(t, v.Dir, 30)
	seen := time.Duration(writeMs(t, v.Device)-before) * time.Millisecond
	t.Logf("30 direct writes at 20 IOPS: %v; the device's write time grew %v", took, seen)
	if took < 800*time.Millisecond {
		t.Errorf("the writes took %v: the throttle did not hold them", took)
	}
	if seen > took/3 {
		t.Errorf("the throttled device's write time grew %v of %v: it saw the throttle", seen, took)
	}
}

// A nested volume's own device waits for its throttled outer device, and
// its write time shows it.
func TestNestedThrottleSeenByInnerDevice(t *testing.T) {
	l := newLab(t)
	v, err := l.Nested(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Outer == nil || v.Outer.Device == v.Device {
		t.Fatalf("nested volume %+v has no outer device of its own", v)
	}
	if err := l.Join(); err != nil {
		t.Fatal(err)
	}
	if err := l.Throttle(v.Outer.Device, Throttle{WriteIOPS: 20}); err != nil {
		t.Fatal(err)
	}
	before := writeMs(t, v.Device)
	took := directWrites(t, v.Dir, 30)
	seen := time.Duration(writeMs(t, v.Device)-before) * time.Millisecond
	t.Logf("30 direct writes, outer device at 20 IOPS: %v; the volume's device's write time grew %v", took, seen)
	if took < 800*time.Millisecond {
		t.Errorf("the writes took %v: the throttle did not hold them", took)
	}
	// 30 writes at 20 a second wait at least 29 × 50 ms for the throttle,
	// however busy the machine; the device must see half of that (the
	// wall time also holds this process's own waits for a core).
	if floor := 29 * 50 * time.Millisecond; seen < floor/2 {
		t.Errorf("the volume's device's write time grew %v of the throttle's %v at least: it did not see the wait", seen, floor)
	}
	// A throttle of zeros lifts the rules on the device.
	if err := l.Throttle(v.Outer.Device, Throttle{}); err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(filepath.Join(l.Cgroup(), "blkio.throttle.write_iops_device"))
	if err != nil || strings.Contains(string(rules), v.Outer.Device.String()+" ") {
		t.Errorf("after lifting the throttle the cgroup holds %q (%v)", rules, err)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	l := newLab(t)
	v, err := l.Nested(context.Background(), 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Join(); err != nil {
		t.Fatal(err)
	}
	if err := l.Throttle(v.Device, Throttle{ReadIOPS: 5, WriteBytesPerSecond: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	dir, cgroup := l.Dir(), l.Cgroup()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, dir, cgroup)
	cur, err := ownCgroup()
	if err != nil || strings.Contains(cur, Prefix) {
		t.Errorf("after Close this process is in %q (%v), not back home", cur, err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := l.Volume(context.Background(), 0); err == nil {
		t.Error("a closed lab made a volume")
	}
}

// assertGone fails the test if a mount, a loop device's backing file, the
// cgroup or the directory of the lab at dir is left.
func assertGone(t *testing.T, dir, cgroup string) {
	t.Helper()
	for _, m := range mounts() {
		if under(m, dir) {
			t.Errorf("mount %s is left", m)
		}
	}
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, bf := range files {
		if b, err := os.ReadFile(bf); err == nil && strings.Contains(string(b), dir) {
			t.Errorf("loop device %s is left on %s", bf, strings.TrimSpace(string(b)))
		}
	}
	if _, err := os.Stat(cgroup); err == nil {
		t.Errorf("cgroup %s is left", cgroup)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("directory %s is left", dir)
	}
}

// TestCleanStale kills a process that made a lab, as a crash or a test
// timeout would, and sweeps what it left.
func TestCleanStale(t *testing.T) {
	if os.Getenv("DISKLAB_HELPER") == "1" {
		l, err := New()
		if err != nil {
			t.Fatal(err)
		}
		v, err := l.Nested(context.Background(), 16<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Throttle(v.Device, Throttle{WriteIOPS: 1}); err != nil {
			t.Fatal(err)
		}
		if err := l.Join(); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString(l.Dir() + " " + l.Cgroup() + "\n")
		time.Sleep(time.Minute) // killed long before
		return
	}
	newLab(t) // checks, and sweeps leftovers of earlier runs
	cmd := exec.Command(os.Args[0], "-test.run=^TestCleanStale$")
	cmd.Env = append(os.Environ(), "DISKLAB_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, _ := out.Read(buf)
	fields := strings.Fields(string(buf[:n]))
	cmd.Process.Signal(unix.SIGKILL)
	cmd.Wait()
	if len(fields) != 2 {
		t.Fatalf("the helper printed %q", buf[:n])
	}
	removed, err := CleanStale()
	if err != nil {
		t.Errorf("CleanStale: %v", err)
	}
	t.Logf("removed %v", removed)
	assertGone(t, fields[0], fields[1])
	if again, err := CleanStale(); err != nil || len(again) != 0 {
		t.Errorf("a second CleanStale removed %v, %v", again, err)
	}
}

func TestStaleNames(t *testing.T) {
	for s, want := range map[string]bool{
		"/tmp/" + Prefix + "999999999-1/v1":             true,
		Prefix + "999999999-3":                          true,
		"/tmp/" + Prefix + "1-1/v1":                     false, // init never ends
		Prefix + strconv.Itoa(os.Getpid()) + "-1":       false, // this process
		"/tmp/other-999999999-1":                        false,
		Prefix + "x-1":                                  false,
		Prefix + "12":                                   false,
		"/sys/fs/cgroup/blkio/" + Prefix + "999999999-": true,
	} {
		if got := stale(s); got != want {
			t.Errorf("stale(%q) = %v, want %v", s, got, want)
		}
	}
}
