package discovery

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestParseServers(t *testing.T) {
	f := func(s string, want []string) {
		t.Helper()
		got, err := ParseServers(s)
		if (err == nil) != (want != nil) || !slices.Equal(got, want) {
			t.Errorf("ParseServers(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	f("zk1:2181", []string{"zk1:2181"})
	f("zk1:2181, zk2:2181 ,zk3", []string{"zk1:2181", "zk2:2181", "zk3"})
	f("", nil)
	f("zk1:2181,,zk2:2181", nil)
	f("zk1:2181,", nil)
	f("zk 1:2181", nil)
	f("zk1:2181/chroot", nil)
}

// FuzzParseServers: the flag is outside input.
func FuzzParseServers(f *testing.F) {
	f.Add("zk1:2181, zk2:2181")
	f.Add(",")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseServers(s)
		if err != nil {
			return
		}
		for _, g := range got {
			if g == "" || strings.ContainsAny(g, ",/") || strings.IndexFunc(g, unicode.IsSpace) >= 0 {
				t.Fatalf("ParseServers(%q) = %q", s, got)
			}
		}
	})
}

// Reference: Curator's ZKPaths.makePath (the driver's path of the
// namespace) and ZooKeeper's PathUtils.validatePath.
func TestNamespacePath(t *testing.T) {
	f := func(ns, want string) {
		t.Helper()
		got, err := namespacePath(ns)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("namespacePath(%q) = %q, %v; want %q", ns, got, err, want)
		}
	}
	f("hiveserver2", "/hiveserver2")
	f("/hiveserver2/", "/hiveserver2")
	f("a/b", "/a/b")
	f("", "")
	f("/", "")
	f("a//b", "")
	f("a/./b", "")
	f("..", "")
	f("zookeeper", "")
	f("zookeeper/quota", "")
	f("zookeeper2", "/zookeeper2")
	f("a\x00", "")
	f("a\u0085", "")
	f("a\ufff0", "")
}
