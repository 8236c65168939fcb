package discovery

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRegistryURL(t *testing.T) {
	f := func(in string, want RegistryURL, wantErr string) {
		t.Helper()
		got, err := ParseRegistryURL(in)
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%q: error %v, want one saying %q", in, err, wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%q: the error shows the password: %v", in, err)
			}
			return
		}
		if err != nil || got.Kind != want.Kind || got.Root != want.Root || !slices.Equal(got.Servers, want.Servers) ||
			got.User != want.User || got.Password != want.Password {
			t.Errorf("%q: got %+v, %v; want %+v", in, got, err, want)
		}
	}
	zk := func(servers []string, root string) RegistryURL {
		return RegistryURL{Kind: ZooKeeperKind, Servers: servers, Root: root}
	}
	f("zk://zk1:2181,zk2:2182/slowpeer", zk([]string{"zk1:2181", "zk2:2182"}, "/slowpeer"), "")
	f("zk://zk1", zk([]string{"zk1:2181"}, DefaultRoot), "")
	f("etcd://e1,e2:1/a/b/", RegistryURL{Kind: EtcdKind, Servers: []string{"e1:2379", "e2:1"}, Root: "/a/b"}, "")
	f("etcd://[::1]:2379/x", RegistryURL{Kind: EtcdKind, Servers: []string{"[::1]:2379"}, Root: "/x"}, "")
	f("http://h:1/x", RegistryURL{}, "is not zk://")
	f("zk://", RegistryURL{}, "an empty server")
	f("zk://a,,b/x", RegistryURL{}, "an empty server")
	f("zk://h:1/a/../b", RegistryURL{}, "root")
	f("zk://h:1/zookeeper", RegistryURL{}, "root")
	f("zk://h:1/a;b", RegistryURL{}, "';'")

	// Credentials: percent-encoded, the last '@' ends them, never shown.
	withAuth := func(u RegistryURL, user, pass string) RegistryURL { u.User, u.Password = user, pass; return u }
	f("zk://slowpeer:s3cret@zk1:2181,zk2/sp", withAuth(zk([]string{"zk1:2181", "zk2:2181"}, "/sp"), "slowpeer", "s3cret"), "")
	f("zk://a%3Ab:p@ss%2Fw@h:1/x", withAuth(zk([]string{"h:1"}, "/x"), "a:b", "p@ss/w"), "")
	f("etcd://root:s3cret@e1/x", RegistryURL{Kind: EtcdKind, Servers: []string{"e1:2379"}, Root: "/x", User: "root", Password: "s3cret"}, "")
	f("zk://u@h:1/a", RegistryURL{}, "credentials are not USER:PASSWORD")
	f("zk://:s3cret@h:1/a", RegistryURL{}, "credentials are not USER:PASSWORD")
	f("zk://u:s3cret%zz@h:1/a", RegistryURL{}, "percent-encoded")
	f("zk://u:s3cret@h 1/a", RegistryURL{}, "is not host:port")
	f("zk://u:s3cret@/a", RegistryURL{}, "an empty server")

	u, _ := ParseRegistryURL("zk://a%3Ab:p@ss%2Fw@h:1/x")
	if got, want := u.String(), "zk://a%3Ab:xxxxx@h:1/x"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	if back, err := ParseRegistryURL(u.String()); err != nil || back.User != "a:b" || back.Password != "xxxxx" {
		t.Errorf("%q reads back as %+v, %v", u.String(), back, err)
	}
}

// Reference: Kyuubi's server znode name serverUri=<host:port>;version=<v>;sequence=<10 digits>.
func TestMemberName(t *testing.T) {
	m := Member{Server: "nn1.example:9871", Scheme: "http", Version: "v1.2.0", Sequence: "0000000007"}
	if got, want := m.Name(), "serverUri=nn1.example:9871;version=v1.2.0;sequence=0000000007"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	m.Scheme = "https"
	if got, want := m.Prefix(), "serverUri=nn1.example:9871;version=v1.2.0;scheme=https;sequence="; got != want {
		t.Errorf("prefix %q, want %q", got, want)
	}
	back, err := ParseMember(m.Name(), m.Data())
	if err != nil || back != m {
		t.Errorf("read back %+v, %v; want %+v", back, err, m)
	}
	if got := back.URL(); got != "https://nn1.example:9871" {
		t.Errorf("URL %q", got)
	}
	for _, bad := range [][2]string{
		{"serverUri=h:1;version=v;scheme=ftp;sequence=0000000000", "h:1"},
		{"serverUri=h:1;version=v;sequence=0000000000", "h"},
		{"serverUri=h:1;version=v;sequence=0000000000", ""},
		{"lock", "h:1"},
	} {
		if _, err := ParseMember(bad[0], []byte(bad[1])); err == nil {
			t.Errorf("ParseMember(%q, %q) accepted", bad[0], bad[1])
		}
	}
	ms, skipped := parseMembers(map[string][]byte{
		"serverUri=b:1;version=v;sequence=0000000001": []byte("b:1"),
		"serverUri=a:1;version=v;sequence=0000000002": []byte("a:1"),
		"lock": []byte("x"),
	})
	if len(ms) != 2 || ms[0].Server != "b:1" || !slices.Equal(skipped, []string{"lock"}) {
		t.Errorf("parseMembers: %+v, skipped %v", ms, skipped)
	}
	if got := MemberURLs(append(ms, ms[0])); !slices.Equal(got, []string{"http://b:1", "http://a:1"}) {
		t.Errorf("MemberURLs %v", got)
	}
}

func FuzzParseRegistryURL(f *testing.F) {
	for _, s := range []string{"zk://h:1/x", "etcd://a,b:2/r/s", "zk://", "zk://[::1]/", "zk://u:p@h/x", "etcd://u%3A:p%40@h:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseRegistryURL(s)
		if err != nil {
			return
		}
		if err := u.validate(); err != nil {
			t.Fatalf("%q parsed to %+v, which does not validate: %v", s, u, err)
		}
		again, err := ParseRegistryURL(u.String())
		if err != nil || again.String() != u.String() || again.User != u.User {
			t.Fatalf("%q: %q reads back as %q, %v", s, u.String(), again.String(), err)
		}
		if u.User != "" && again.Password != "xxxxx" {
			t.Fatalf("%q: String %q shows a password", s, u.String())
		}
	})
}

func FuzzParseMember(f *testing.F) {
	f.Add("serverUri=h:1;version=v;scheme=https;sequence=0000000000", "h:1")
	f.Add("serverUri=[::1]:1;version=v;sequence=0000000003", "[::1]:1")
	f.Fuzz(func(t *testing.T, name, data string) {
		m, err := ParseMember(name, []byte(data))
		if err != nil {
			return
		}
		if m.Scheme != "http" && m.Scheme != "https" {
			t.Fatalf("scheme %q", m.Scheme)
		}
		if m.validate() == nil && m.Sequence != "" {
			back, err := ParseMember(m.Name(), m.Data())
			if err != nil || back != m {
				t.Fatalf("%+v reads back as %+v, %v", m, back, err)
			}
		}
	})
}
