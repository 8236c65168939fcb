package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// devVersion is the version of a build that carries none: a plain go build
// of a checkout without a release tag reports "(devel)".
const devVersion = "v0.0.0-dev"

// revisionDigits is how much of the VCS revision the version line shows,
// as much as git's short hashes of a large repository.
const revisionDigits = 12

// version is the release version a build was given with
// -ldflags "-X main.version=v1.2.3" (scripts/deb gives it git describe's
// tag); empty, the module version the Go toolchain stamped is used.
var version string

// revision is the VCS revision given with -ldflags "-X main.revision=..."
// (scripts/deb gives it, since a build from a git worktree carries none);
// the revision the Go toolchain stamped wins.
var revision string

// runVersion runs "slowpeer version" (also "slowpeer -version"): it prints
// one line, "slowpeer VERSION (revision REV[, modified])", from the build
// information the Go toolchain stamps into the binary.
func runVersion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	_, err := fmt.Fprintln(stdout, versionLine(info))
	return err
}

// buildVersion returns the version of a build: the one given with
// -ldflags -X main.version, else the module version, else devVersion;
// info may be nil. It is the VERSION of versionLine and the JMX
// SoftwareVersion of the service and the agent.
func buildVersion(info *debug.BuildInfo) string {
	if version != "" {
		return version
	}
	if info != nil {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return devVersion
}

// softwareVersion is buildVersion of the running binary.
func softwareVersion() string {
	info, _ := debug.ReadBuildInfo()
	return buildVersion(info)
}

// versionLine formats the version of a build from its build information,
// which may be nil (a binary built without module support).
func versionLine(info *debug.BuildInfo) string {
	version, revision, modified := buildVersion(info), cmp.Or(revision, "unknown"), false
	if len(revision) > revisionDigits {
		revision = revision[:revisionDigits]
	}
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
				if len(revision) > revisionDigits {
					revision = revision[:revisionDigits]
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := fmt.Sprintf("slowpeer %s (revision %s", version, revision)
	if modified {
		line += ", modified"
	}
	return line + ")"
}
