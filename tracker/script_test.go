package tracker

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scenario tests are scripts under testdata/, in the manner of
// etcd-io/raft's interaction tests. A script is a sequence of commands,
// each one line followed by a line "----" and the output it must give, up
// to the next blank line:
//
//	# Comments and blank lines between commands are kept as they are.
//	report t=0s from=x:1 slow=a:1:35.2
//	----
//	entries=1
//
// The commands are in commands_test.go. go test -run TestScripts -update
// rewrites every output block with what the commands give now; review the
// diff before committing it.
var update = flag.Bool("update", false, "rewrite the expected output of the scripts under testdata/")

// scriptCommand is one command of a script and the output expected of it.
type scriptCommand struct {
	line int    // 1-based line of the command in its file
	text string // the command line
	want string // the expected output, without the final newline
}

// scriptPart is a piece of a script: text kept verbatim, or a command.
type scriptPart struct {
	verbatim string // comments and blank lines, each ending in a newline
	cmd      *scriptCommand
}

// parseScript splits a script into its parts. It fails the test on a
// command without its "----" line.
func parseScript(t *testing.T, path, text string) []scriptPart {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var parts []scriptPart
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			parts = append(parts, scriptPart{verbatim: line + "\n"})
			continue
		}
		if i+1 >= len(lines) || lines[i+1] != "----" {
			t.Fatalf("%s:%d: command %q is not followed by a line ----", path, i+1, line)
		}
		cmd := &scriptCommand{line: i + 1, text: line}
		var want []string
		for i += 2; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		cmd.want = strings.Join(want, "\n")
		parts = append(parts, scriptPart{cmd: cmd})
		if i < len(lines) {
			parts = append(parts, scriptPart{verbatim: "\n"})
		}
	}
	return parts
}

// formatScript writes parts back as a script.
func formatScript(parts []scriptPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.cmd == nil {
			b.WriteString(p.verbatim)
			continue
		}
		b.WriteString(p.cmd.text + "\n----\n")
		if p.cmd.want != "" {
			b.WriteString(p.cmd.want + "\n")
		}
	}
	return b.String()
}

// runScripts runs every testdata/*.txt script through run, which gets a
// fresh state per file and returns a command's output, and compares the
// outputs with the expected ones, or rewrites them under -update.
func runScripts(t *testing.T, run func(t *testing.T, s *scriptState, cmd string) string) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no scripts under testdata/")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			parts := parseScript(t, path, string(text))
			state := &scriptState{}
			var mismatches []string // reported at the end: t.Failed means a command failed
			for _, p := range parts {
				if p.cmd == nil {
					continue
				}
				got := strings.TrimRight(run(t, state, p.cmd.text), "\n")
				if t.Failed() {
					t.Fatalf("%s:%d: %s: failed", path, p.cmd.line, p.cmd.text)
				}
				if *update {
					p.cmd.want = got
				} else if got != p.cmd.want {
					mismatches = append(mismatches, fmt.Sprintf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, p.cmd.line, p.cmd.text, got, p.cmd.want))
				}
			}
			for _, m := range mismatches {
				t.Error(m)
			}
			if *update {
				if err := os.WriteFile(path, []byte(formatScript(parts)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
