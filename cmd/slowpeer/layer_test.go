package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The end-to-end layer of this package is the test files named e2e_*,
// each built only with the e2e tag: "go test" runs the unit tests, and
// scripts/test runs the layer with -tags e2e and -run naming the Test
// functions of the e2e_ files. A file named e2e_ without the tag would run
// twice; a tagged file without the name would never run.
func TestE2ELayerFiles(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	layer := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		tagged := first == "//go:build e2e"
		named := strings.HasPrefix(f, "e2e_")
		switch {
		case named && !tagged:
			t.Errorf("%s: an e2e_ file without //go:build e2e as its first line", f)
		case tagged && !named:
			t.Errorf("%s: built only with -tags e2e but not named e2e_*: scripts/test would not run it", f)
		case named:
			layer++
		}
	}
	if layer == 0 {
		t.Error("no e2e_ test files")
	}
}
