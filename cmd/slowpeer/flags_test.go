package main

import (
	"strings"
	"testing"
)

// Every command's -h prints its flags whole: flag asks String of zero
// flag values too, and a panic there would print instead of a default.
func TestHelpPrintsNoPanic(t *testing.T) {
	for _, cmd := range [][]string{{"simulate"}, {"demo"}, {"namenode"}, {"datanode"}, {"report"}, {"admin"}} {
		code, _, stderr := runCLI(append(cmd, "-h")...)
		if code != 0 || strings.Contains(stderr, "panic") || !strings.Contains(stderr, "usage: slowpeer "+cmd[0]) {
			t.Errorf("%s -h: exit %d, stderr %q", cmd[0], code, stderr)
		}
	}
}
