package diskstat

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOfRoot(t *testing.T) {
	var st unix.Stat_t
	if err := unix.Stat("/", &st); err != nil {
		t.Fatal(err)
	}
	if unix.Major(st.Dev) == 0 {
		t.Skip("the root file system has no block device here")
	}
	d, err := Of(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d.Major != unix.Major(st.Dev) && !sameFS(t, "/", os.TempDir()) {
		t.Skip("the temporary directory is on another file system")
	}
	if d.Major == 0 {
		t.Errorf("Of = %v, a device without a major number", d)
	}
}

func sameFS(t *testing.T, a, b string) bool {
	var x, y unix.Stat_t
	return unix.Stat(a, &x) == nil && unix.Stat(b, &y) == nil && x.Dev == y.Dev
}

func TestOfNoDevice(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no procfs")
	}
	_, err := Of("/proc/self")
	if !errors.Is(err, ErrNoDevice) {
		t.Errorf("Of(/proc/self) = %v, want ErrNoDevice", err)
	}
	if _, err := Of("/no/such/dir"); err == nil || errors.Is(err, ErrNoDevice) {
		t.Errorf("Of(/no/such/dir) = %v, want a stat error", err)
	}
}

func TestMountSource(t *testing.T) {
	f := func(dir string, d Device, want string) {
		t.Helper()
		got, err := mountSource("testdata/mountinfo", dir, d)
		if want == "" {
			if !errors.Is(err, ErrNoDevice) {
				t.Errorf("mountSource(%s, %v) = %q, %v; want ErrNoDevice", dir, d, got, err)
			}
			return
		}
		if err != nil || got != want {
			t.Errorf("mountSource(%s, %v) = %q, %v; want %q", dir, d, got, err, want)
		}
	}
	f("/data/1/blocks", Device{0, 40}, "/dev/sdb")
	f("/data/1/snap/x", Device{0, 40}, "/dev/sdb") // the longest mount point
	f("/data/with space/current", Device{0, 41}, "/dev/sdc")
	f("/scratch", Device{0, 50}, "tmpfs")
	f("/data/1", Device{0, 99}, "")
	f("/data/10", Device{0, 40}, "") // not under /data/1
}

func TestKind(t *testing.T) {
	sys := t.TempDir()
	disk := func(path, rot string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(sys, path, "queue"), 0o755); err != nil {
			t.Fatal(err)
		}
		if rot != "" {
			if err := os.WriteFile(filepath.Join(sys, path, "queue", "rotational"), []byte(rot+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(d Device, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(sys, target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(sys, "dev", "block"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(sys, target), filepath.Join(sys, "dev", "block", d.String())); err != nil {
			t.Fatal(err)
		}
	}
	disk("devices/sda", "1")
	link(Device{8, 0}, "devices/sda")
	link(Device{8, 1}, "devices/sda/sda1")
	disk("devices/sdb", "0")
	link(Device{8, 16}, "devices/sdb")
	disk("devices/nvme0n1", "0")
	link(Device{259, 0}, "devices/nvme0n1")
	disk("devices/odd", "")
	link(Device{1, 1}, "devices/odd")
	for d, want := range map[Device]string{{8, 0}: "hdd", {8, 1}: "hdd", {8, 16}: "ssd", {259, 0}: "nvme", {1, 1}: "", {9, 9}: ""} {
		if got := Kind(sys, d); got != want {
			t.Errorf("Kind(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestReadDevice(t *testing.T) {
	sys := t.TempDir()
	dir := filepath.Join(sys, "dev", "block", "7:1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := "     142        0     2816       23      160       79    26346     1943        2     1952     1991        2        0   262146        0        8       23\n"
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDevice(sys, Device{7, 1}, make([]byte, 256))
	want := Counters{Device: Device{7, 1}, Reads: 142, ReadSectors: 2816, ReadMs: 23, Writes: 160, WriteSectors: 26346,
		WriteMs: 1943, InFlight: 2, BusyMs: 1952}
	if err != nil || got != want {
		t.Fatalf("ReadDevice = %+v, %v\nwant %+v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte("1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDevice(sys, Device{7, 1}, nil); err == nil {
		t.Error("a short stat read without error")
	}
	if _, err := ReadDevice(sys, Device{7, 2}, nil); err == nil {
		t.Error("a missing device read without error")
	}
	// The machine's own devices, where there are any.
	if all, err := Parse(mustRead(t, Path)); err == nil && len(all) > 0 {
		if c, err := ReadDevice("", all[0].Device, nil); err != nil || c.Device != all[0].Device {
			t.Errorf("ReadDevice(%v) = %+v, %v", all[0].Device, c, err)
		}
	}
}
