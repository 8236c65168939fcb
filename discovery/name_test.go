package discovery

import (
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// Reference: HiveServer2.start (znodePathPrefix "serverUri=" + instanceURI
// + ";version=" + HiveVersionInfo.getVersion() + ";sequence=", the counter
// appended by ZooKeeper for EPHEMERAL_SEQUENTIAL).
func TestParseName(t *testing.T) {
	f := func(s string, want Name, wantErr bool) {
		t.Helper()
		got, err := ParseName(s)
		if (err != nil) != wantErr {
			t.Fatalf("ParseName(%q): error %v, want error %v", s, err, wantErr)
		}
		if got != want {
			t.Errorf("ParseName(%q) = %+v, want %+v", s, got, want)
		}
	}
	f("serverUri=hs1.example.com:10000;version=3.1.3;sequence=0000000012",
		Name{"hs1.example.com:10000", "3.1.3", "0000000012"}, false)
	f("serverUri=10.0.0.5:10001;version=4.0.0-alpha-2;sequence=0000000000",
		Name{"10.0.0.5:10001", "4.0.0-alpha-2", "0000000000"}, false)
	// Hive's own tests register without a version; Kyuubi adds fields.
	f("serverUri=hs1:10000;sequence=0000000001", Name{"hs1:10000", "", "0000000001"}, false)
	f("serverUri=hs1:10000;version=1.9.0;refId=abc;sequence=0000000001", Name{"hs1:10000", "1.9.0", "0000000001"}, false)
	f("serverUri=hs1:10000", Name{Server: "hs1:10000"}, false)
	// getCanonicalHostName gives an IPv6 host without brackets.
	f("serverUri=fe80:0:0:0:0:0:0:1:10000;version=3.1.3;sequence=0000000003",
		Name{"[fe80:0:0:0:0:0:0:1]:10000", "3.1.3", "0000000003"}, false)
	f("serverUri=[::1]:10000;version=3;sequence=0000000003", Name{"[::1]:10000", "3", "0000000003"}, false)
	// The counter goes negative past 2^31.
	f("serverUri=hs1:10000;version=3;sequence=-000000001", Name{"hs1:10000", "3", "-000000001"}, false)
	f("serverUri=hs1:10000;version=a=b;sequence=1", Name{"hs1:10000", "a=b", "1"}, false)

	f("", Name{}, true)
	f("hs1:10000", Name{}, true)
	f("version=3;sequence=0000000001", Name{}, true)
	f("serverUri=hs1;version=3;sequence=0000000001", Name{}, true)
	f("serverUri=:10000;version=3", Name{}, true)
	f("serverUri=hs1:0;version=3", Name{}, true)
	f("serverUri=hs1:65536;version=3", Name{}, true)
	f("serverUri=hs1:010000;version=3", Name{}, true)
	f("serverUri=hs 1:10000;version=3", Name{}, true)
	f("serverUri=hs1:10000;version=3;sequence=", Name{}, true)
	f("serverUri=hs1:10000;version=3;sequence=12a", Name{}, true)
	f("serverUri=hs1:10000;version=3;sequence=+1", Name{}, true)
	f("serverUri=hs1:10000;version=3;sequence=99999999999", Name{}, true)
	f("serverUri=hs1:10000;serverUri=hs2:10000", Name{}, true)
	f("serverUri=hs1:10000;version=3;", Name{}, true)
	f("serverUri=hs1:10000;version=3\x01", Name{}, true)
	f("serverUri=[hs1:10000;version=3", Name{}, true)
}

func TestNameFormat(t *testing.T) {
	f := func(n Name, prefix string, valid bool) {
		t.Helper()
		if got := n.Prefix(); got != prefix {
			t.Errorf("%+v.Prefix() = %q, want %q", n, got, prefix)
		}
		if err := n.Validate(); (err == nil) != valid {
			t.Errorf("%+v.Validate() = %v, want valid %v", n, err, valid)
		}
	}
	f(Name{Server: "hs1:10000", Version: "3.1.3"}, "serverUri=hs1:10000;version=3.1.3;sequence=", true)
	f(Name{Server: "hs1:10000"}, "serverUri=hs1:10000;version=;sequence=", true)
	f(Name{Server: "[::1]:10000", Version: "4"}, "serverUri=[::1]:10000;version=4;sequence=", true)
	f(Name{Server: "hs1:10000", Version: "3;x"}, "serverUri=hs1:10000;version=3;x;sequence=", false)
	f(Name{Server: "hs1:10000", Version: "3/x"}, "serverUri=hs1:10000;version=3/x;sequence=", false)
	f(Name{Server: "h;s:10000"}, "serverUri=h;s:10000;version=;sequence=", false)
	f(Name{Server: "h=s:10000"}, "serverUri=h=s:10000;version=;sequence=", false)
	f(Name{Server: "hs1"}, "serverUri=hs1;version=;sequence=", false)
	f(Name{Server: "hs1:1", Sequence: "x"}, "serverUri=hs1:1;version=;sequence=", false)
}

func TestNameNewer(t *testing.T) {
	f := func(a, b string, want bool) {
		t.Helper()
		na, err := ParseName(a)
		if err != nil {
			t.Fatal(err)
		}
		nb, err := ParseName(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := na.newer(nb); got != want {
			t.Errorf("%q newer than %q = %v, want %v", a, b, got, want)
		}
	}
	f("serverUri=h:1;sequence=0000000010", "serverUri=h:1;sequence=0000000009", true)
	f("serverUri=h:1;sequence=0000000009", "serverUri=h:1;sequence=0000000010", false)
	f("serverUri=h:1;sequence=0000000001", "serverUri=h:1", true)
	f("serverUri=h:1;version=4;sequence=1", "serverUri=h:1;version=3;sequence=1", true)
}

// FuzzParseName: a name is outside input. Whatever ParseName accepts
// validates, names a node reports accepts, and reads back the same from
// String.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{
		"serverUri=hs1.example.com:10000;version=3.1.3;sequence=0000000012",
		"serverUri=fe80:0:0:0:0:0:0:1:10000;version=3.1.3;sequence=0000000003",
		"serverUri=hs1:10000;version=1.9.0;refId=abc;sequence=0000000001",
		"serverUri=[::1]:1;sequence=-000000001",
		"serverUri=hs1:10000;version=a=b",
		"junk",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseName(s)
		if err != nil {
			return
		}
		if err := n.Validate(); err != nil {
			t.Fatalf("ParseName(%q) = %+v, which does not validate: %v", s, n, err)
		}
		if err := reports.ValidateNode(n.Server); err != nil {
			t.Fatalf("ParseName(%q) server %q: %v", s, n.Server, err)
		}
		back, err := ParseName(n.String())
		if err != nil || back != n {
			t.Fatalf("ParseName(%q) = %+v; its String %q reads back as %+v, %v", s, n, n.String(), back, err)
		}
	})
}
