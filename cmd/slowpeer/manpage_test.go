package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/internal/testenv"
)

// cli runs the command line args and returns its exit code and output.
func cli(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// docs/slowpeer.1 is what "slowpeer man" writes now: run go generate
// ./cmd/slowpeer after changing a flag, a key or a subcommand.
func TestManPageInSync(t *testing.T) {
	code, page, stderr := cli("man")
	if code != 0 {
		t.Fatalf("slowpeer man: exit %d: %s", code, stderr)
	}
	committed, err := os.ReadFile("../../docs/slowpeer.1")
	if err != nil {
		t.Fatal(err)
	}
	if page != string(committed) {
		t.Fatal("docs/slowpeer.1 is out of date: run go generate ./cmd/slowpeer")
	}
	// Every flag of every subcommand is in it, read from the FlagSets.
	docs, err := commandDocs()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(commands) {
		t.Fatalf("%d subcommands documented, want %d", len(docs), len(commands))
	}
	for _, d := range docs {
		for _, f := range d.flags {
			if !strings.Contains(page, `\-`+roff(f.name)) {
				t.Errorf("slowpeer %s -%s is not in the man page", d.name, f.name)
			}
		}
	}
	// The hidden subcommands are not listed by help.
	if _, out, _ := cli("help"); strings.Contains(out, "  man ") || strings.Contains(out, "completion") {
		t.Fatalf("help lists a hidden subcommand:\n%s", out)
	}
}

// The datanode's keys are its -h keys, and a flag's default is what -h
// prints.
func TestCommandDocs(t *testing.T) {
	docs, err := commandDocs()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]commandDoc{}
	for _, d := range docs {
		byName[d.name] = d
	}
	dn := byName["datanode"]
	if len(dn.keys) != len(datanodeKeyNames()) || dn.keys[0].name != "dfs.heartbeat.interval" || dn.keys[0].value != "3s" {
		t.Fatalf("datanode keys: %v", dn.keys)
	}
	if !strings.HasPrefix(byName["hiveserver pick"].usage, "slowpeer hiveserver pick -namenode") {
		t.Fatalf("hiveserver pick usage: %q", byName["hiveserver pick"].usage)
	}
	for _, f := range byName["detect"].flags {
		if f.name == "min-resources" && (f.def != "10" || f.arg != "int") {
			t.Fatalf("detect -min-resources: %+v", f)
		}
	}
	if zeroDefault(&flag.Flag{DefValue: "5"}) || !zeroDefault(&flag.Flag{DefValue: "false"}) {
		t.Fatal("zeroDefault")
	}
	if got := roff(`.x-y\z`); got != `\&.x\-y\ez` {
		t.Fatalf("roff = %q", got)
	}
}

// The completion script, loaded in a real bash, completes subcommands,
// their flags, -D keys and the subcommand of hiveserver.
func TestBashCompletion(t *testing.T) {
	bash := testenv.Command(t, "bash")
	code, script, stderr := cli("completion", "bash")
	if code != 0 {
		t.Fatalf("slowpeer completion bash: exit %d: %s", code, stderr)
	}
	complete := func(line string) string {
		t.Helper()
		words := strings.Fields(line)
		if strings.HasSuffix(line, " ") {
			words = append(words, "")
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			string(rune('0'+len(words)-1)) + "\n_slowpeer\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	f := func(line, want string) {
		t.Helper()
		if got := complete(line); got != want {
			t.Errorf("complete %q = %q, want %q", line, got, want)
		}
	}
	f("slowpeer da", "datanode")
	f("slowpeer datanode -hadoop", "-hadoop-jmx")
	f("slowpeer namenode -D slowpeer.slow.e", "slowpeer.slow.enter.after= slowpeer.slow.enter.reporters=")
	f("slowpeer hiveserver ", "pick")
	f("slowpeer hiveserver pick -name", "-namenode")
	f("slowpeer report -j", "-json")
	if code, _, stderr := cli("completion", "zsh"); code != 2 || !strings.Contains(stderr, "bash") {
		t.Fatalf("completion zsh: exit %d, %q", code, stderr)
	}
}
