package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

func TestVersionLine(t *testing.T) {
	f := func(info *debug.BuildInfo, want string) {
		t.Helper()
		if got := versionLine(info); got != want {
			t.Fatalf("versionLine = %q, want %q", got, want)
		}
	}
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	f(nil, "slowpeer v0.0.0-dev (revision unknown)")
	f(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "slowpeer v0.0.0-dev (revision unknown)")
	f(&debug.BuildInfo{
		Main:     debug.Module{Version: "(devel)"},
		Settings: settings("vcs", "git", "vcs.revision", "8a9a175e0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e", "vcs.modified", "true"),
	}, "slowpeer v0.0.0-dev (revision 8a9a175e0b1c, modified)")
	f(&debug.BuildInfo{
		Main:     debug.Module{Version: "v1.2.3"},
		Settings: settings("vcs.revision", "abc123", "vcs.modified", "false"),
	}, "slowpeer v1.2.3 (revision abc123)")
	// The pseudo-version Go stamps from VCS tags is shown as it is.
	f(&debug.BuildInfo{
		Main:     debug.Module{Version: "v0.0.0-20261201072500-8a9a175e0b1c+dirty"},
		Settings: settings("vcs.revision", "8a9a175e0b1c2d3e", "vcs.modified", "true"),
	}, "slowpeer v0.0.0-20261201072500-8a9a175e0b1c+dirty (revision 8a9a175e0b1c, modified)")

	// The service's JMX SoftwareVersion is the VERSION of that line.
	if v := buildVersion(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}); v != "v1.2.3" {
		t.Fatalf("buildVersion = %q", v)
	}
	if v := buildVersion(nil); v != devVersion {
		t.Fatalf("buildVersion(nil) = %q", v)
	}
}

func TestVersionCommand(t *testing.T) {
	info, _ := debug.ReadBuildInfo()
	want := versionLine(info) + "\n"
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, stdout, stderr := cli(args...)
		if code != 0 || stdout != want || stderr != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, stdout, stderr, want)
		}
	}
	if code, stdout, stderr := cli("version", "extra"); code != 2 || stdout != "" || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Fatalf("version extra: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, _ := cli("help"); code != 0 || !strings.Contains(stdout, "  version ") {
		t.Fatalf("help does not list version: %q", stdout)
	}
}

// TestVersionOfBuiltBinary builds the binary from this checkout, as a user
// does, and checks that it names the checkout's revision. -buildvcs=true
// because a GOFLAGS of -buildvcs=false (in the environment or go env -w)
// would leave the revision out.
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gocmd := testenv.Command(t, "go")
	git := testenv.Command(t, "git")
	head, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The go command finds a repository by a .git directory only
	// (cmd/go/internal/vcs, vcsGit.RootNames): a git worktree, whose .git
	// is a file, gets no VCS stamp.
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree: the go command stamps no revision here")
	}
	bin := filepath.Join(t.TempDir(), "slowpeer")
	if b, err := exec.Command(gocmd, "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "(revision " + strings.TrimSpace(string(head))[:revisionDigits]
	if line := string(out); !strings.HasPrefix(line, "slowpeer v") || !strings.Contains(line, want) {
		t.Fatalf("slowpeer version = %q, want it to name %s)", line, want)
	}
}

// A version given with -ldflags -X main.version wins over the module's.
func TestVersionFromLdflags(t *testing.T) {
	defer func(v, r string) { version, revision = v, r }(version, revision)
	version, revision = "v2.0.0", "8a9a175e0b1c2d3e4f5a"
	if got := versionLine(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}); got != "slowpeer v2.0.0 (revision 8a9a175e0b1c)" {
		t.Fatalf("versionLine = %q", got)
	}
	// A revision the toolchain stamped wins.
	info := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	if got := versionLine(info); got != "slowpeer v2.0.0 (revision abc123)" {
		t.Fatalf("versionLine = %q", got)
	}
}
