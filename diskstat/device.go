package diskstat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoDevice is the error of Of for a directory whose file system has no
// block device of its own that the kernel counts (tmpfs, overlay, NFS, a
// FUSE file system).
var ErrNoDevice = errors.New("no block device under it")

// Of returns the block device that holds dir: the st_dev of dir, or, for a
// file system that gives its files an anonymous device number (major 0:
// btrfs, and every file system without a device), the device its mount
// names as its source when that is a block device.
func Of(dir string) (Device, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return Device{}, fmt.Errorf("find the device of %s: %w", dir, &os.PathError{Op: "stat", Path: dir, Err: err})
	}
	d := Device{Major: unix.Major(st.Dev), Minor: unix.Minor(st.Dev)}
	if d.Major != 0 {
		return d, nil
	}
	src, err := mountSource("/proc/self/mountinfo", dir, d)
	if err != nil {
		return Device{}, fmt.Errorf("find the device of %s: %w", dir, err)
	}
	var sst unix.Stat_t
	if !strings.HasPrefix(src, "/dev/") || unix.Stat(src, &sst) != nil || sst.Mode&unix.S_IFMT != unix.S_IFBLK {
		return Device{}, fmt.Errorf("find the device of %s: mounted from %q: %w", dir, src, ErrNoDevice)
	}
	return Device{Major: unix.Major(sst.Rdev), Minor: unix.Minor(sst.Rdev)}, nil
}

// mountSource returns the source of the mount of dir among the mounts of
// device number d in a mountinfo document: the one whose mount point is
// the longest prefix of dir.
func mountSource(mountinfo, dir string, d Device) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	ms, err := Mounts(mountinfo)
	if err != nil {
		return "", err
	}
	best, source := -1, ""
	for _, m := range ms {
		if m.Device != d || !under(abs, m.Point) || len(m.Point) <= best {
			continue
		}
		best, source = len(m.Point), m.Source
	}
	if best < 0 {
		return "", fmt.Errorf("no mount of device %s in %s: %w", d, mountinfo, ErrNoDevice)
	}
	return source, nil
}

// Mount is one mount of a mountinfo document.
type Mount struct {
	// Device is the device number the mount's files have (st_dev).
	Device Device
	// Point is where it is mounted.
	Point string
	// Source is what it mounts: a device's path, or a name.
	Source string
}

// Mounts reads a mountinfo document (/proc/self/mountinfo, proc(5)),
// skipping lines it cannot read.
func Mounts(mountinfo string) ([]Mount, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if m, ok := parseMountinfo(sc.Bytes()); ok {
			out = append(out, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", mountinfo, err)
	}
	return out, nil
}

// parseMountinfo reads one line of mountinfo:
// "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER".
func parseMountinfo(line []byte) (Mount, bool) {
	f := bytes.Fields(line)
	if len(f) < 10 {
		return Mount{}, false
	}
	maj, min, ok := bytes.Cut(f[2], []byte(":"))
	if !ok {
		return Mount{}, false
	}
	a, err1 := strconv.ParseUint(string(maj), 10, 32)
	b, err2 := strconv.ParseUint(string(min), 10, 32)
	if err1 != nil || err2 != nil {
		return Mount{}, false
	}
	sep := -1
	for i := 6; i < len(f); i++ {
		if string(f[i]) == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(f) {
		return Mount{}, false
	}
	return Mount{Device: Device{uint32(a), uint32(b)}, Point: unescape(string(f[4])), Source: unescape(string(f[sep+2]))}, true
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and
// backslash ("\040").
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// under reports whether path is point or lies below it.
func under(path, point string) bool {
	if point == "/" {
		return true
	}
	return path == point || strings.HasPrefix(path, point+"/")
}

// Kind returns what kind of device d is, as the service compares like
// with like: "nvme" for an NVMe namespace, "hdd" for a device the kernel
// calls rotational, "ssd" for one it does not, "" when sysfs does not
// say (a device without a queue of its own). A partition is of its
// disk's kind. sysfs is the root of sysfs, "" for /sys.
func Kind(sysfs string, d Device) string {
	if sysfs == "" {
		sysfs = "/sys"
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(sysfs, "dev", "block", d.String()))
	if err != nil {
		return ""
	}
	rot, err := os.ReadFile(filepath.Join(dir, "queue", "rotational"))
	if err != nil {
		dir = filepath.Dir(dir) // a partition: its disk's directory holds it
		rot, err = os.ReadFile(filepath.Join(dir, "queue", "rotational"))
	}
	if err != nil {
		return ""
	}
	if strings.HasPrefix(filepath.Base(dir), "nvme") {
		return "nvme"
	}
	switch strings.TrimSpace(string(rot)) {
	case "1":
		return "hdd"
	case "0":
		return "ssd"
	}
	return ""
}
