package disklab

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/diskstat"
)

// Throttle is a limit of the block-I/O controller on one device; a zero
// field is no limit of that kind.
type Throttle struct {
	// ReadIOPS and WriteIOPS bound the requests per second.
	ReadIOPS, WriteIOPS uint64
	// ReadBytesPerSecond and WriteBytesPerSecond bound the bytes per
	// second.
	ReadBytesPerSecond, WriteBytesPerSecond uint64
}

// Throttle sets t on device d for every process in the lab's cgroup
// (Join), replacing what was set on d before.
func (l *Lab) Throttle(d diskstat.Device, t Throttle) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		return errors.New("disklab: the lab is closed")
	}
	for file, v := range map[string]uint64{
		"blkio.throttle.read_iops_device":  t.ReadIOPS,
		"blkio.throttle.write_iops_device": t.WriteIOPS,
		"blkio.throttle.read_bps_device":   t.ReadBytesPerSecond,
		"blkio.throttle.write_bps_device":  t.WriteBytesPerSecond,
	} {
		// 0 removes a rule, as the kernel reads it.
		if err := writeFile(filepath.Join(l.cgroup, file), d.String()+" "+strconv.FormatUint(v, 10)); err != nil {
			return err
		}
	}
	return nil
}

// Join moves this process, every thread of it, into the lab's cgroup, so
// that its I/O to a throttled device waits; Close moves it back. A process
// is in one blkio cgroup at a time: Join fails while the process is in
// another lab's.
func (l *Lab) Join() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		return errors.New("disklab: the lab is closed")
	}
	if l.home != "" {
		return nil
	}
	cur, err := ownCgroup()
	if err != nil {
		return err
	}
	if strings.Contains(cur, Prefix) {
		return fmt.Errorf("disklab: this process is in the cgroup of another lab, %s", cur)
	}
	if err := writeFile(filepath.Join(l.cgroup, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
		return err
	}
	l.home = filepath.Join(CgroupRoot, cur)
	return nil
}

// leave moves every process of the lab's cgroup to home; l.mu is held.
func (l *Lab) leave(home string) error {
	return moveAll(l.cgroup, home)
}

// moveAll moves every process of cgroup from to cgroup to.
func moveAll(from, to string) error {
	data, err := os.ReadFile(filepath.Join(from, "cgroup.procs"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("disklab: %w", err)
	}
	var errs []error
	for _, pid := range strings.Fields(string(data)) {
		if err := writeFile(filepath.Join(to, "cgroup.procs"), pid); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ownCgroup returns this process's blkio cgroup, relative to CgroupRoot,
// from /proc/self/cgroup ("7:blkio:/path").
func ownCgroup() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("disklab: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && controls(parts[1], "blkio") {
			return strings.TrimPrefix(parts[2], "/"), nil
		}
	}
	return "", errors.New("disklab: this process is in no blkio cgroup (is the cgroup v1 blkio controller mounted?)")
}

func controls(list, controller string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == controller {
			return true
		}
	}
	return false
}

// writeFile writes one value to a cgroup file, as one write(2): the
// kernel reads each write as one command.
func writeFile(name, value string) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("disklab: %w", err)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("disklab: write %q to %s: %w", value, name, err)
	}
	return nil
}
