package discovery

import (
	"net"
	"slices"
	"strconv"
	"testing"
)

// Reference: ZooKeeperHiveClientHelper.kvPattern, applyConfs.
func TestParseParams(t *testing.T) {
	f := func(data string, want []Param, wantErr bool) {
		t.Helper()
		got, err := ParseParams([]byte(data))
		if (err != nil) != wantErr {
			t.Fatalf("ParseParams(%q): error %v, want error %v", data, err, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ParseParams(%q) = %q, want %q", data, got, want)
		}
	}
	f("a=1;b=2", []Param{{"a", "1"}, {"b", "2"}}, false)
	f("a=1;b=2;", []Param{{"a", "1"}, {"b", "2"}}, false)
	f("a=1=2;junk;;b=", []Param{{"a", "1=2"}, {"b", ""}}, false)
	f("=", []Param{{"", ""}}, false)
	f("hs1:10000", nil, true)
	f("", nil, true)
}

func TestFormatParams(t *testing.T) {
	f := func(ps []Param, want string, wantErr bool) {
		t.Helper()
		got, err := FormatParams(ps)
		if (err != nil) != wantErr {
			t.Fatalf("FormatParams(%q): error %v, want error %v", ps, err, wantErr)
		}
		if string(got) != want {
			t.Errorf("FormatParams(%q) = %q, want %q", ps, got, want)
		}
	}
	f([]Param{{"a", "1"}, {"b", "x=y"}}, "a=1;b=x=y", false)
	f([]Param{{"a", ""}}, "a=", false)
	f(nil, "", false)
	f([]Param{{"a", "1;b=2"}}, "", true)
	f([]Param{{"a=b", "1"}}, "", true)
	f([]Param{{"a;b", "1"}}, "", true)
	f([]Param{{"", "1"}}, "", true)
}

// Endpoint must agree with the driver emulation on every input: same
// success, same address.
func TestEndpoint(t *testing.T) {
	f := func(data, want string) {
		t.Helper()
		host, port, err := Endpoint([]byte(data))
		got := "error"
		if err == nil {
			got = net.JoinHostPort(host, strconv.Itoa(port))
		}
		if got != want {
			t.Errorf("Endpoint(%q) = %s (%v), want %s", data, got, err, want)
		}
		checkEndpointAgainstDriver(t, []byte(data))
	}
	// Hive 1.2 and hive.server2.zookeeper.publish.configs=false.
	f("hs1.example.com:10000", "hs1.example.com:10000")
	f("hs1:10000:", "hs1:10000")
	f("hs1:10000::", "hs1:10000")
	f("hs1", "error")
	f("", "error")
	f(":", "error")
	f(":10000", "error") // the driver takes host "", which names no server
	f("hs1:0", "error")
	f("hs1:65536", "error")
	f("hs1:-1", "error")
	f("hs1:x", "error")
	// Hive ≥ 1.3 configs.
	f(string(hs2Configs("hs1.example.com", 10000)), "hs1.example.com:10000")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.transport.mode=http;hive.server2.thrift.http.port=10001;hive.server2.thrift.http.path=cliservice", "hs1:10001")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.http.port=10001;hive.server2.thrift.port=10000", "hs1:10000")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=-1;hive.server2.thrift.http.port=10001", "hs1:10001")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=10000;hive.server2.thrift.http.port=x", "hs1:10000")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.http.port=x", "error")
	f("hive.server2.thrift.bind.host=;hive.server2.thrift.port=10000", "error")
	f("hive.server2.thrift.port=10000", "error")
	f("hive.server2.thrift.bind.host=hs1", "error")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=99999999999", "error")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=+10000", "hs1:10000")
	f("hive.server2.thrift.bind.host=a;hive.server2.thrift.bind.host=b;hive.server2.thrift.port=1", "b:1")
}

// checkEndpointAgainstDriver compares Endpoint with the emulated driver
// for one data.
func checkEndpointAgainstDriver(t *testing.T, data []byte) {
	t.Helper()
	host, port, err := Endpoint(data)
	var p jdbcParams
	derr := jdbcApply(data, &p)
	usable := derr == nil && p.hostSet && p.host != "" && p.port >= 1 && p.port <= 65535
	if (err == nil) != usable {
		t.Fatalf("data %q: Endpoint error %v; the driver: error %v, lands on %s", data, err, derr, p.endpoint())
	}
	if err == nil && (host != p.host || int32(port) != p.port) {
		t.Fatalf("data %q: Endpoint %s:%d, the driver lands on %s", data, host, port, p.endpoint())
	}
}

// FuzzEndpoint: znode data are outside input; Endpoint reads them as the
// driver does (the emulation in jdbc_test.go is the reference).
func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{
		"hs1:10000",
		"hs1:10000:",
		string(hs2Configs("hs1", 10000)),
		"hive.server2.thrift.bind.host=hs1;hive.server2.thrift.http.port=10001",
		"a=1=2;;junk;hive.server2.thrift.port=3",
		"\xff=\xfe;hive.server2.thrift.bind.host=\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEndpointAgainstDriver(t, data)
		if ps, err := ParseParams(data); err == nil {
			// What ParseParams reads, FormatParams writes back to data the
			// driver reads the same way.
			ps = slices.DeleteFunc(ps, func(p Param) bool { return p.Key == "" })
			if out, err := FormatParams(ps); err == nil && len(ps) > 0 {
				var a, b jdbcParams
				ea, eb := jdbcApply(data, &a), jdbcApply(out, &b)
				if (ea == nil) != (eb == nil) || ea == nil && a.endpoint() != b.endpoint() {
					t.Fatalf("data %q and its re-formatting %q read differently: %s (%v), %s (%v)", data, out, a.endpoint(), ea, b.endpoint(), eb)
				}
			}
		}
	})
}
