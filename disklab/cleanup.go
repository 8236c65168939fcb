package disklab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/diskstat"
)

// Close moves the processes of the lab's cgroup back where this process
// was and removes the cgroup, then unmounts, detaches and deletes every
// volume, nested ones before the volumes that hold them, and the lab's
// directory. It tries everything and returns every error; calling it
// again does nothing.
func (l *Lab) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		return nil
	}
	var errs []error
	home := l.home
	if home == "" {
		home = CgroupRoot
	}
	errs = append(errs, l.leave(home), removeCgroup(l.cgroup))
	for _, v := range slices.Backward(l.volumes) {
		errs = append(errs, v.remove())
	}
	if err := os.Remove(l.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("disklab: %w", err))
	}
	l.volumes, l.dir, l.home = nil, "", ""
	return errors.Join(errs...)
}

// removeCgroup removes an empty cgroup; its throttles go with it.
func removeCgroup(dir string) error {
	err := unix.Rmdir(dir)
	for i := 0; errors.Is(err, unix.EBUSY) && i < 50; i++ {
		// A task just moved out may take a moment to leave.
		time.Sleep(10 * time.Millisecond)
		err = unix.Rmdir(dir)
	}
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("disklab: remove the cgroup %s: %w", dir, err)
	}
	return nil
}

// unmount unmounts dir, waiting a little for files still open on it and
// detaching it lazily at last.
func unmount(dir string) error {
	err := unix.Unmount(dir, 0)
	for i := 0; errors.Is(err, unix.EBUSY) && i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
		err = unix.Unmount(dir, 0)
	}
	if errors.Is(err, unix.EBUSY) {
		err = unix.Unmount(dir, unix.MNT_DETACH)
	}
	if err != nil && !errors.Is(err, unix.EINVAL) { // EINVAL: not mounted
		return fmt.Errorf("disklab: unmount %s: %w", dir, err)
	}
	return nil
}

// mounted reports whether dir is a mount point.
func mounted(dir string) bool {
	for _, m := range mounts() {
		if m == dir {
			return true
		}
	}
	return false
}

// mounts returns this process's mount points.
func mounts() []string {
	ms, _ := diskstat.Mounts("/proc/self/mountinfo")
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Point
	}
	return out
}

// CleanStale removes what labs of processes no longer running left
// behind (a crash, a SIGKILL, a test binary killed at its timeout): their
// cgroups, mounts, loop devices and directories, found by name. It
// returns what it removed.
func CleanStale() ([]string, error) {
	var removed []string
	var errs []error
	// Cgroups first: a throttle left on a loop device would slow the next
	// user of its numbers.
	if entries, err := os.ReadDir(CgroupRoot); err == nil {
		for _, e := range entries {
			if !e.IsDir() || !stale(e.Name()) {
				continue
			}
			dir := filepath.Join(CgroupRoot, e.Name())
			if err := errors.Join(moveAll(dir, CgroupRoot), removeCgroup(dir)); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, dir)
		}
	}
	// Loop devices, while their backing files still have their names: a
	// detach of a device in use (mounted, or holding the backing file of a
	// nested one) marks it to go once free (autoclear). Once a mount point
	// is gone, a nested volume's backing file shows as relative to its
	// outer file system, without the lab's name.
	loops := staleLoops()
	for _, dev := range loops {
		output(context.Background(), "losetup", "--detach", dev) // busy: autoclear
	}
	// Mounts: a nested volume's file system must go before the outer one
	// that holds its backing file, and each frees its loop device, which
	// then detaches itself. Whatever is busy is tried again, a few times,
	// then detached lazily.
	var points []string
	for _, m := range mounts() {
		if stale(m) && !slices.Contains(points, m) {
			points = append(points, m)
		}
	}
	for pass := 0; len(points) > 0 && pass < 50; pass++ {
		points = slices.DeleteFunc(points, func(m string) bool {
			err := unix.Unmount(m, 0)
			if err == nil || errors.Is(err, unix.EINVAL) {
				removed = append(removed, m)
				return true
			}
			return false
		})
		if len(points) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, m := range points {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
			errs = append(errs, fmt.Errorf("disklab: unmount %s: %w", m, err))
			continue
		}
		removed = append(removed, m)
	}
	for _, dev := range loops {
		if err := waitDetached(dev); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dev)
	}
	if entries, err := os.ReadDir(os.TempDir()); err == nil {
		for _, e := range entries {
			dir := filepath.Join(os.TempDir(), e.Name())
			if !stale(e.Name()) || slices.ContainsFunc(mounts(), func(m string) bool { return under(m, dir) }) {
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, dir)
		}
	}
	return removed, errors.Join(errs...)
}

// waitDetached waits up to a few seconds for the loop device dev to be
// detached, detaching it again each time (a device that was busy at the
// first attempt, before autoclear was honoured).
func waitDetached(dev string) error {
	bf := filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file")
	for range 100 {
		if _, err := os.Stat(bf); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		output(context.Background(), "losetup", "--detach", dev)
		time.Sleep(30 * time.Millisecond)
	}
	return fmt.Errorf("disklab: loop device %s is still attached", dev)
}

// staleLoops returns the loop devices whose backing file is a stale lab's.
func staleLoops() []string {
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	var out []string
	for _, bf := range files {
		if b, err := os.ReadFile(bf); err == nil && stale(strings.TrimSpace(string(b))) {
			out = append(out, "/dev/"+filepath.Base(filepath.Dir(filepath.Dir(bf))))
		}
	}
	return out
}

// stale reports whether s names a thing of a lab whose process is gone:
// it holds "slowpeer-disklab-PID-" with PID not running.
func stale(s string) bool {
	i := strings.Index(s, Prefix)
	if i < 0 {
		return false
	}
	rest := s[i+len(Prefix):]
	j := strings.IndexByte(rest, '-')
	if j <= 0 {
		return false
	}
	pid, err := strconv.Atoi(rest[:j])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	_, err = os.Stat("/proc/" + strconv.Itoa(pid))
	return errors.Is(err, os.ErrNotExist)
}

// under reports whether path is dir or lies below it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}
