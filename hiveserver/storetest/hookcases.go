package storetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/slowpeer/slowpeer/hiveserver"
)

// HookCasesFile is where the reference bodies are, from the module's root:
// made by hiveserver/testdata/HookBody.java with java.net.URLEncoder, as
// the Java hook makes them.
const HookCasesFile = "hiveserver/testdata/hook_bodies.jsonl"

// HookCase is one line of HookCasesFile: a statement and the exact body a
// Java hook sends for it (server hs1.example.com:10000; the timestamp of
// the i-th case is 1704110400000+i).
type HookCase struct {
	Hook     hiveserver.Hook `json:"hook"`
	QueryID  string          `json:"queryId"`
	JobName  string          `json:"jobName"`
	QueryStr string          `json:"queryStr"`
	Body     string          `json:"body"`
}

// HookCases reads HookCasesFile, found from the test's directory (any
// package of the module), and fails the test when it cannot.
func HookCases(t testing.TB) []HookCase {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, HookCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []HookCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c HookCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("hook_bodies.jsonl: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil || len(cases) < 5 {
		t.Fatalf("hook_bodies.jsonl: %v, %d cases", err, len(cases))
	}
	return cases
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's is its package's) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the module's root: no go.mod at or above the working directory")
		}
		dir = parent
	}
}
