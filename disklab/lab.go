package disklab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/slowpeer/slowpeer/diskstat"
)

// Prefix starts the name of everything a lab makes.
const Prefix = "slowpeer-disklab-"

// CgroupRoot is where the cgroup v1 blkio controller is mounted.
const CgroupRoot = "/sys/fs/cgroup/blkio"

// DefaultSize is the size of a volume's backing file (sparse: it takes
// only what the file system writes).
const DefaultSize = 64 << 20

// seq numbers the labs of one process.
var seq atomic.Int64

// Lab is a set of volumes on loop devices and one cgroup whose throttles
// slow them. Its methods are safe for concurrent use; Close removes
// everything.
type Lab struct {
	dir    string // under the temporary directory, holds images and mount points
	cgroup string // the lab's blkio cgroup

	mu      sync.Mutex
	volumes []*Volume // in the order made; Close undoes them backwards
	home    string    // the blkio cgroup this process left in Join, "" if it did not
	n       int       // volumes made, for names
}

// Volume is one file system on a loop device of a lab.
type Volume struct {
	// Dir is where the volume is mounted: the directory a DataNode keeps
	// blocks in.
	Dir string
	// Device is the volume's own loop device.
	Device diskstat.Device
	// Outer is the volume that holds this one's backing file, nil unless
	// the volume is nested.
	Outer *Volume

	loop  string // /dev/loopN
	image string // the backing file
}

// Check reports why this process cannot make a lab, or nil.
func Check() error {
	if os.Geteuid() != 0 {
		return errors.New("disklab: loop devices, mounts and cgroups need root; run as root")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("disklab: %s is not on PATH (util-linux, e2fsprogs): %w", tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(CgroupRoot, "blkio.throttle.write_iops_device")); err != nil {
		return fmt.Errorf("disklab: the cgroup v1 blkio controller is not mounted at %s: %w", CgroupRoot, err)
	}
	return nil
}

// New makes an empty lab: its directory and its cgroup. On error it
// removes what it made.
func New() (*Lab, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	name := Prefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(seq.Add(1), 10)
	l := &Lab{dir: filepath.Join(os.TempDir(), name), cgroup: filepath.Join(CgroupRoot, name)}
	if err := os.Mkdir(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("disklab: %w", err)
	}
	if err := os.Mkdir(l.cgroup, 0o755); err != nil {
		return nil, errors.Join(fmt.Errorf("disklab: make the cgroup: %w", err), os.RemoveAll(l.dir))
	}
	return l, nil
}

// Dir returns the lab's directory.
func (l *Lab) Dir() string { return l.dir }

// Cgroup returns the lab's blkio cgroup directory.
func (l *Lab) Cgroup() string { return l.cgroup }

// Volume makes a volume of size bytes (DefaultSize when 0) whose backing
// file lies on the machine's file system.
func (l *Lab) Volume(ctx context.Context, size int64) (*Volume, error) {
	return l.volume(ctx, l.dir, size, nil)
}

// Nested makes a volume of size bytes (DefaultSize when 0) whose backing
// file lies on an outer volume of its own, read and written with direct
// I/O, as every volume's: throttling v.Outer.Device slows v in a way v's
// own counters show.
func (l *Lab) Nested(ctx context.Context, size int64) (*Volume, error) {
	if size <= 0 {
		size = DefaultSize
	}
	outer, err := l.volume(ctx, l.dir, size+size/4+(16<<20), nil)
	if err != nil {
		return nil, err
	}
	return l.volume(ctx, outer.Dir, size, outer)
}

func (l *Lab) volume(ctx context.Context, parent string, size int64, outer *Volume) (*Volume, error) {
	if size <= 0 {
		size = DefaultSize
	}
	l.mu.Lock()
	if l.dir == "" {
		l.mu.Unlock()
		return nil, errors.New("disklab: the lab is closed")
	}
	l.n++
	name := "v" + strconv.Itoa(l.n)
	l.mu.Unlock()
	v := &Volume{Outer: outer, image: filepath.Join(parent, name+".img"), Dir: filepath.Join(l.dir, name)}
	if err := v.make(ctx, size); err != nil {
		return nil, errors.Join(err, v.remove())
	}
	l.mu.Lock()
	l.volumes = append(l.volumes, v)
	l.mu.Unlock()
	return v, nil
}

// make creates the backing file, attaches it, formats and mounts it. On
// error, v says what to undo.
func (v *Volume) make(ctx context.Context, size int64) error {
	f, err := os.OpenFile(v.image, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("disklab: %w", err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("disklab: %w", err)
	}
	// Direct I/O on the backing file, always: a loop device that went
	// through the page cache of its backing file would complete writes at
	// memory speed and make every flush write back whatever its file
	// system had buffered, unlike a disk.
	args := []string{"--find", "--show", "--direct-io=on"}
	out, err := output(ctx, "losetup", append(args, v.image)...)
	if err != nil {
		return err
	}
	v.loop = strings.TrimSpace(out)
	var st unix.Stat_t
	if err := unix.Stat(v.loop, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return fmt.Errorf("disklab: losetup gave %q, not a block device", v.loop)
	}
	v.Device = diskstat.Device{Major: unix.Major(st.Rdev), Minor: unix.Minor(st.Rdev)}
	// Initialise the inode tables and the journal now, not in the
	// background where they would add I/O to the first measurements.
	if _, err := output(ctx, "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", v.loop); err != nil {
		return err
	}
	if err := os.Mkdir(v.Dir, 0o755); err != nil {
		return fmt.Errorf("disklab: %w", err)
	}
	if err := unix.Mount(v.loop, v.Dir, "ext4", 0, ""); err != nil {
		return fmt.Errorf("disklab: mount %s on %s: %w", v.loop, v.Dir, err)
	}
	return nil
}

// remove unmounts, detaches and deletes what make made of v.
func (v *Volume) remove() error {
	var errs []error
	if mounted(v.Dir) {
		errs = append(errs, unmount(v.Dir))
	}
	if v.loop != "" {
		_, err := output(context.Background(), "losetup", "--detach", v.loop)
		errs = append(errs, err)
	}
	if err := os.Remove(v.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := os.Remove(v.image); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// output runs a tool and returns what it printed; its error carries the
// command line and the tool's words.
func output(ctx context.Context, name string, args ...string) (string, error) {
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("disklab: %s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out.String(), nil
}
