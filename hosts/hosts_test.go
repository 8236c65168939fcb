package hosts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Reference: HostsFileReader.readFileToSet (words split on [ \t\n\f\r]+, a
// word starting with # ends the line) and HostFileManager.parseEntry.
func TestParse(t *testing.T) {
	f := func(in string, want ...Entry) {
		t.Helper()
		got, err := Parse(strings.NewReader(in))
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q) = %v, want %v", in, got, want)
		}
	}
	f("")
	f("# only a comment\n\n   \n")
	f("dn1.example\n", Entry{Host: "dn1.example"})
	f("DN1.Example:9866 # the first\n10.0.0.2 10.0.0.3:50010\t#x y\n",
		Entry{Host: "dn1.example", Port: 9866}, Entry{Host: "10.0.0.2"}, Entry{Host: "10.0.0.3", Port: 50010})
	f("dn1\r\ndn2\fdn3 dn1", Entry{Host: "dn1"}, Entry{Host: "dn2"}, Entry{Host: "dn3"})
	f("::1 [fe80::1]:9866 [2001:db8::1] ::ffff:10.0.0.1",
		Entry{Host: "::1"}, Entry{Host: "fe80::1", Port: 9866}, Entry{Host: "2001:db8::1"}, Entry{Host: "10.0.0.1"})

	bad := func(in, want string) {
		t.Helper()
		_, err := Parse(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Parse(%q): %v, want an error with %q", in, err, want)
		}
	}
	bad("dn1\ndn2:0\n", "line 2: \"dn2:0\": bad port")
	bad("dn1:65536", "bad port")
	bad("dn1:x", "bad port")
	bad("a:b:c", `"a:b:c" is not a host or host:port`)
	bad("http://dn1/", "bad port")
	bad("dn1/x", "is not a host")
	bad("user@dn1", "is not a host")
	bad("fe80::1%eth0", "is not a host")
}

func TestSetContains(t *testing.T) {
	entries, err := Parse(strings.NewReader("dn1.example\n10.0.0.2:9866\nDN3:1004 ::1\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(entries, map[string][]string{"dn1.example": {"10.0.0.1", "::ffff:10.0.0.11"}})
	f := func(node string, want bool) {
		t.Helper()
		if got := s.Contains(node); got != want {
			t.Fatalf("Contains(%q) = %v, want %v", node, got, want)
		}
	}
	f("dn1.example:9866", true) // no port: every DataNode of the host
	f("DN1.example:1", true)
	f("10.0.0.1:9866", true) // by the address the name resolved to
	f("10.0.0.11:9866", true)
	f("10.0.0.2:9866", true)
	f("10.0.0.2:9867", false) // a port: that DataNode only
	f("dn3:1004", true)
	f("dn3:9866", false)
	f("[::1]:9866", true)
	f("dn4:9866", false)
	f("not a node", false)
	if !s.ContainsHost("dn1.example") || !s.ContainsHost("10.0.0.1") || s.ContainsHost("10.0.0.2") || s.ContainsHost("dn3") {
		t.Fatal("ContainsHost: only hosts named without a port are in whole")
	}
	if got := s.Hosts(); !reflect.DeepEqual(got, []string{"10.0.0.1", "10.0.0.11", "10.0.0.2", "::1", "dn1.example", "dn3"}) {
		t.Fatalf("Hosts = %v", got)
	}
	if s.Len() != 4 || len(s.Entries()) != 4 {
		t.Fatalf("Len %d, Entries %v", s.Len(), s.Entries())
	}
	var empty *Set
	if empty.Contains("dn1:1") || empty.ContainsHost("dn1") || empty.Len() != 0 {
		t.Fatal("a nil Set holds nothing")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exclude")
	if err := os.WriteFile(path, []byte("dn1.example\ndn2.example:9866\n10.0.0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	lookup := func(ctx context.Context, host string) ([]string, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("lookup without a deadline")
		}
		if host == "dn1.example" {
			return []string{"10.0.0.1"}, nil
		}
		asked = append(asked, host)
		return nil, errors.New("no such host")
	}
	s, unresolved, err := ReadFile(context.Background(), path, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(unresolved, []string{"dn2.example"}) || !reflect.DeepEqual(asked, []string{"dn2.example"}) {
		t.Fatalf("unresolved %v, asked %v: want only dn2.example, and no lookup of an address", unresolved, asked)
	}
	if !s.Contains("10.0.0.1:9866") || !s.Contains("dn2.example:9866") || !s.Contains("10.0.0.9:1") {
		t.Fatal("the file's entries and dn1's address are in the set")
	}

	if err := os.WriteFile(path, []byte("dn1\n\n# x\ndn2:99999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(context.Background(), path, nil); err == nil || !strings.Contains(err.Error(), path+": line 4: ") {
		t.Fatalf("a bad entry: %v, want an error naming the file and the line", err)
	}
	if _, _, err := ReadFile(context.Background(), filepath.Join(dir, "missing"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a missing file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"dn1\n", "dn1:9866 # c\n10.0.0.1", "[::1]:1 ::1", "a:b:c", "#\n#x y\n z", "\xff:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := Parse(strings.NewReader(in))
		if err != nil {
			if entries != nil {
				t.Fatal("entries with an error")
			}
			return
		}
		s := New(entries, nil)
		// Every entry reads back as itself and is in the set.
		for _, e := range entries {
			again, err := Parse(strings.NewReader(e.String()))
			if err != nil || len(again) != 1 || again[0] != e {
				t.Fatalf("entry %v reads back as %v, %v", e, again, err)
			}
			port := e.Port
			if port == 0 {
				port = 1
			}
			if node := (Entry{Host: e.Host, Port: port}).String(); !s.Contains(node) {
				t.Fatalf("%s is not in the set of %q", node, in)
			}
		}
	})
}
