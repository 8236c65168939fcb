// Package deb_test builds the Debian package with scripts/deb and puts it
// through what an operator does with it: lintian, dpkg -i, slowpeer
// version from /usr/bin, systemd-analyze verify of the installed units,
// dpkg -r (only the configuration stays) and dpkg -P (nothing stays).
//
// It installs into this machine's root file system, so it runs as root
// only (skipped otherwise, failed under SLOWPEER_REQUIRE_SERVICES=1), one
// run at a time on the machine (a lock file), and purges the package at
// the end even when it fails.
package deb_test

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// lockFile serializes the runs of this test on one machine: dpkg has one
// database, and the package has one name.
const lockFile = "/run/lock/slowpeer-deb-test.lock"

// stateDir is what the namenode unit makes at run time (StateDirectory).
const stateDir = "/var/lib/slowpeer"

// conffiles are the package's configuration files, which dpkg -r keeps.
var conffiles = []string{"/etc/slowpeer/namenode.env", "/etc/slowpeer/datanode.env"}

// run runs a command and returns its combined output, failing the test
// when it fails.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// installed reports dpkg's status of the package: "" when dpkg knows
// nothing of it.
func installed(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("dpkg-query", "-W", "-f=${Status}", "slowpeer").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// exists reports whether path exists (a dangling link counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func TestDebianPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, lints, installs and removes the package")
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "not root: the package test installs into /")
	}
	for _, cmd := range []string{"dpkg", "dpkg-deb", "dpkg-query", "lintian", "systemd-analyze", "git", "go"} {
		testenv.Command(t, cmd)
	}
	lock, err := os.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	if st := installed(t); st != "" {
		// Left by a run that was killed before its cleanup.
		t.Logf("slowpeer is known to dpkg already (%s): purging it first", st)
		run(t, "dpkg", "-P", "slowpeer")
	}
	t.Cleanup(func() {
		if installed(t) != "" {
			if out, err := exec.Command("dpkg", "-P", "slowpeer").CombinedOutput(); err != nil {
				t.Errorf("cleanup: dpkg -P slowpeer: %v\n%s", err, out)
			}
		}
		os.RemoveAll(stateDir)
	})

	// Build.
	out := t.TempDir()
	deb := strings.TrimSpace(run(t, "../../scripts/deb", out))
	if filepath.Dir(deb) != out || !strings.HasSuffix(deb, ".deb") {
		t.Fatalf("scripts/deb printed %q", deb)
	}
	fi, err := os.Stat(deb)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", filepath.Base(deb), fi.Size())
	files := packageFiles(t, deb)

	// Lint: no error and no warning (the one override is in the package).
	if out, err := exec.Command("lintian", "--fail-on", "error,warning", deb).CombinedOutput(); err != nil {
		t.Fatalf("lintian: %v\n%s", err, out)
	}

	// Install.
	run(t, "dpkg", "-i", deb)
	if st := installed(t); st != "install ok installed" {
		t.Fatalf("after dpkg -i: status %q", st)
	}
	rev := strings.TrimSpace(run(t, "git", "rev-parse", "HEAD"))
	version := run(t, "/usr/bin/slowpeer", "version")
	if !strings.HasPrefix(version, "slowpeer v") || !strings.Contains(version, "(revision "+rev[:12]) {
		t.Fatalf("/usr/bin/slowpeer version = %q, want revision %s", version, rev[:12])
	}
	run(t, "getent", "passwd", "slowpeer")
	for _, unit := range []string{"slowpeer-namenode.service", "slowpeer-datanode.service"} {
		// Warnings are only printed (exit 0): any output fails.
		if out := run(t, "systemd-analyze", "verify", "--man=no", "/lib/systemd/system/"+unit); out != "" {
			t.Errorf("systemd-analyze verify %s:\n%s", unit, out)
		}
	}
	if page := run(t, "/usr/bin/slowpeer", "man"); !strings.Contains(page, `.SS slowpeer datanode`) {
		t.Errorf("slowpeer man:\n%s", page)
	}
	// The state the namenode unit would have made.
	if err := os.MkdirAll(stateDir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stateDir, "hiveserver.db"), []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}

	// Remove: only the configuration stays.
	run(t, "dpkg", "-r", "slowpeer")
	if st := installed(t); st != "deinstall ok config-files" {
		t.Fatalf("after dpkg -r: status %q", st)
	}
	for _, f := range files {
		conf := false
		for _, c := range conffiles {
			conf = conf || f == c
		}
		if exists(f) != conf {
			t.Errorf("after dpkg -r: %s exists: %v", f, exists(f))
		}
	}

	// Purge: nothing stays, the state and the user included.
	run(t, "dpkg", "-P", "slowpeer")
	if st := installed(t); st != "" {
		t.Fatalf("after dpkg -P: status %q", st)
	}
	for _, f := range append(files, "/etc/slowpeer", stateDir) {
		if exists(f) {
			t.Errorf("after dpkg -P: %s is left", f)
		}
	}
	if out, err := exec.Command("getent", "passwd", "slowpeer").Output(); err == nil {
		t.Errorf("after dpkg -P: user slowpeer is left: %s", out)
	}
	if out, err := exec.Command("getent", "group", "slowpeer").Output(); err == nil {
		t.Errorf("after dpkg -P: group slowpeer is left: %s", out)
	}
}

// packageFiles returns the absolute paths of the regular files and links
// in deb, and checks that the layout is the one promised.
func packageFiles(t *testing.T, deb string) []string {
	t.Helper()
	var files []string
	sc := bufio.NewScanner(strings.NewReader(run(t, "dpkg-deb", "--contents", deb)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[0][0] == 'd' {
			continue
		}
		files = append(files, strings.TrimPrefix(fields[5], "."))
	}
	for _, want := range append([]string{
		"/usr/bin/slowpeer",
		"/lib/systemd/system/slowpeer-namenode.service",
		"/lib/systemd/system/slowpeer-datanode.service",
		"/usr/lib/sysusers.d/slowpeer.conf",
		"/usr/share/man/man1/slowpeer.1.gz",
		"/usr/share/bash-completion/completions/slowpeer",
		"/usr/share/doc/slowpeer/copyright",
	}, conffiles...) {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Errorf("the package has no %s:\n%s", want, strings.Join(files, "\n"))
		}
	}
	return files
}
