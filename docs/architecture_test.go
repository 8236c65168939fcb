// Package docs_test keeps the documents true to the tree: the files
// architecture.md names exist, and every link between the documents leads
// to a file and a heading that exist.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// root is the module root, seen from this directory.
const root = ".."

// documents are the pages whose links are checked (DETECTION.md has an
// owner of its own and is left out).
var documents = []string{
	"README.md", "BENCHMARKS.md", "CHANGELOG.md",
	"docs/architecture.md", "docs/configuration.md", "docs/http-api.md",
	"docs/operations.md", "docs/commands.md", "docs/hive-hook.md",
	"docs/disks.md", "docs/runbook.md",
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	fence    = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// paths returns the code spans of text that are paths inside the tree: no
// blank, no scheme, and a first element that is a directory at the root
// (`datanode/prober.go`, `deploy/systemd/`), so that `stat/distuv` or
// `/proc/diskstats` are not taken for ours.
func paths(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		s := m[1]
		if strings.ContainsAny(s, " *?{}<>$") || strings.Contains(s, "://") || !strings.Contains(s, "/") || strings.HasPrefix(s, "/") {
			continue
		}
		first, _, _ := strings.Cut(s, "/")
		if fi, err := os.Stat(filepath.Join(root, first)); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, s)
	}
	return out
}

// Every path architecture.md writes in backquotes exists.
func TestArchitecturePaths(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	ps := paths(t, string(b))
	if len(ps) < 20 {
		t.Fatalf("architecture.md names %d paths; the heartbeat's walk alone names more: is the pattern broken?", len(ps))
	}
	for _, p := range ps {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("architecture.md names %s, which does not exist", p)
		}
	}
}

// slug is the anchor GitHub gives a heading: lower case, letters, digits,
// '-' and '_' kept, blanks made '-', everything else dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings, with
// GitHub's -1, -2 for repeated ones.
func anchors(text string) map[string]bool {
	text = fence.ReplaceAllString(text, "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+string(rune('0'+n))] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func TestSlug(t *testing.T) {
	f := func(h, want string) {
		t.Helper()
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	f("`POST /v1/heartbeat`", "post-v1heartbeat")
	f("Why some defaults differ from Hadoop's", "why-some-defaults-differ-from-hadoops")
	f("`GET /healthz`, `GET /readyz`", "get-healthz-get-readyz")
	f("Restarts, state and backups", "restarts-state-and-backups")
}

// Every relative link of the documents leads to a file that exists and,
// with a #fragment into a Markdown file, to one of its headings.
func TestLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(p string) (string, bool) {
		if s, ok := texts[p]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return "", false
		}
		texts[p] = string(b)
		return texts[p], true
	}
	checked := 0
	for _, doc := range documents {
		text, ok := read(doc)
		if !ok {
			t.Errorf("%s does not exist", doc)
			continue
		}
		for _, m := range link.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			if file == "" {
				file = doc
			} else {
				file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), file)))
			}
			checked++
			if _, err := os.Stat(filepath.Join(root, file)); err != nil {
				t.Errorf("%s links %s: no such file %s", doc, target, file)
				continue
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			body, _ := read(file)
			if !anchors(body)[frag] {
				t.Errorf("%s links %s: %s has no heading #%s", doc, target, file, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no link checked: is the pattern broken?")
	}
}
