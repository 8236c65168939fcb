// Package systemd_test checks the systemd units shipped in deploy/systemd:
// systemd-analyze must verify them without a word and rate their hardening
// at most 2.0 (its "OK"), and the flags of the example environment files
// must be flags the slowpeer binary has.
package systemd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// The units, the subcommand each runs (also the name of its environment
// file, COMMAND.env) and the variable holding its flags.
var units = []struct{ name, command, argsVar string }{
	{"slowpeer-namenode", "namenode", "SLOWPEER_NAMENODE_ARGS"},
	{"slowpeer-datanode", "datanode", "SLOWPEER_DATANODE_ARGS"},
}

// The paths the units name, which the test points elsewhere: verify
// refuses a unit whose ExecStart program does not exist.
const (
	binPath        = "/usr/local/bin/slowpeer"
	environmentDir = "/etc/slowpeer/"
)

// installed copies the unit into a temporary directory with its ExecStart
// program and EnvironmentFile moved there (a stand-in script, a copy of the
// example file) and returns the copy's path. edit, when not nil, changes
// the unit's text first.
func installed(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	text, err := os.ReadFile(name + ".service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(text)
	envFile := strings.TrimPrefix(name, "slowpeer-") + ".env"
	for _, want := range []string{"ExecStart=" + binPath + " ", "EnvironmentFile=" + environmentDir + envFile + "\n"} {
		if !strings.Contains(unit, want) {
			t.Fatalf("%s.service lacks %q", name, want)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "slowpeer")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, envFile), env, 0o644); err != nil {
		t.Fatal(err)
	}
	unit = strings.ReplaceAll(unit, "ExecStart="+binPath+" ", "ExecStart="+bin+" ")
	unit = strings.ReplaceAll(unit, "EnvironmentFile="+environmentDir, "EnvironmentFile="+dir+"/")
	if edit != nil {
		unit = edit(unit)
	}
	path := filepath.Join(dir, name+".service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// analyze runs systemd-analyze and returns its exit error and everything it
// printed.
func analyze(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(testenv.Command(t, "systemd-analyze"), args...).CombinedOutput()
	return string(out), err
}

func TestUnitsVerify(t *testing.T) {
	for _, u := range units {
		// Unknown keys and bad values are only warnings to systemd (exit
		// 0), so any output at all fails.
		if out, err := analyze(t, "verify", "--man=no", installed(t, u.name, nil)); err != nil || out != "" {
			t.Errorf("systemd-analyze verify %s.service: %v\n%s", u.name, err, out)
		}
	}
	// The check sees a broken unit.
	broken := installed(t, units[0].name, func(s string) string {
		return strings.Replace(s, "ProtectSystem=strict", "ProtectSystem=strikt", 1)
	})
	if out, _ := analyze(t, "verify", "--man=no", broken); !strings.Contains(out, "protect system") {
		t.Errorf("systemd-analyze verify of a broken unit said %q", out)
	}
}

func TestUnitsHardened(t *testing.T) {
	for _, u := range units {
		// --threshold is the exposure level times 10.
		if out, err := analyze(t, "security", "--offline=yes", "--threshold=20", installed(t, u.name, nil)); err != nil {
			t.Errorf("systemd-analyze security %s.service rates it over 2.0: %v\n%s", u.name, err, out)
		}
	}
}

// TestEnvironmentFlags checks that every flag of the example environment
// files is one the subcommand defines.
func TestEnvironmentFlags(t *testing.T) {
	gocmd := testenv.Command(t, "go")
	bin := filepath.Join(t.TempDir(), "slowpeer")
	if b, err := exec.Command(gocmd, "build", "-o", bin, "github.com/slowpeer/slowpeer/cmd/slowpeer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	for _, u := range units {
		env, err := os.ReadFile(u.command + ".env")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^` + u.argsVar + `="([^"]*)"$`).FindSubmatch(env)
		if m == nil {
			t.Fatalf("%s.env does not set %s", u.command, u.argsVar)
		}
		help, _ := exec.Command(bin, u.command, "-h").CombinedOutput()
		flags := 0
		for _, arg := range strings.Fields(string(m[1])) {
			if !strings.HasPrefix(arg, "-") {
				continue
			}
			flags++
			if !strings.Contains(string(help), "\n  "+arg+" ") {
				t.Errorf("%s.env: slowpeer %s has no flag %s:\n%s", u.command, u.command, arg, help)
			}
		}
		if flags == 0 {
			t.Errorf("%s.env: %s holds no flags", u.command, u.argsVar)
		}
	}
}
