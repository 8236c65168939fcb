package discovery

import (
	"net"
	"slices"
	"strings"
	"testing"
)

func mustName(t testing.TB, s string) Name {
	t.Helper()
	n, err := ParseName(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Reference: HiveServer2.addConfsToPublish (what a registration holds),
// ZooKeeperHiveClientHelper.applyConfs (what the driver takes from it).
func TestRecord(t *testing.T) {
	f := func(server string, reg *Registration, plain bool, wantPrefix, wantData string) {
		t.Helper()
		prefix, data, err := Record(server, reg, DefaultVersion, plain)
		if wantPrefix == "" {
			if err == nil {
				t.Fatalf("Record(%q) = %q, %q; want an error", server, prefix, data)
			}
			return
		}
		if err != nil {
			t.Fatalf("Record(%q): %v", server, err)
		}
		if prefix != wantPrefix || string(data) != wantData {
			t.Errorf("Record(%q) =\n %q, %q\nwant\n %q, %q", server, prefix, data, wantPrefix, wantData)
		}
		// Whatever the driver held before (a fresh lookup, or a retry
		// after another server failed), it lands on server.
		for _, prev := range []jdbcParams{{}, {host: "old", hostSet: true, port: 1}} {
			p := prev
			if err := jdbcApply(data, &p); err != nil || p.endpoint() != server {
				t.Errorf("Record(%q) data %q: the driver, after %+v, lands on %s (%v)", server, data, prev, p.endpoint(), err)
			}
		}
	}
	f("hs1.example.com:10000", nil, false,
		"serverUri=hs1.example.com:10000;version=slowpeer;sequence=",
		"hive.server2.thrift.bind.host=hs1.example.com;hive.server2.thrift.port=10000;hive.server2.instance.uri=hs1.example.com:10000")
	f("hs1.example.com:10000", nil, true,
		"serverUri=hs1.example.com:10000;version=slowpeer;sequence=", "hs1.example.com:10000")

	// A Hive 3 binary registration: its settings are kept, its address
	// is the chosen server's.
	binary := &Registration{
		Name: mustName(t, "serverUri=hs1.example.com:10000;version=3.1.3;sequence=0000000007"),
		Data: hs2Configs("10.0.0.5", 10000),
	}
	f("hs1.example.com:10000", binary, false,
		"serverUri=hs1.example.com:10000;version=3.1.3;sequence=",
		"hive.server2.thrift.bind.host=hs1.example.com;hive.server2.thrift.port=10000;hive.server2.instance.uri=hs1.example.com:10000;"+
			"hive.server2.thrift.sasl.qop=auth;hive.server2.transport.mode=binary;hive.server2.authentication=NONE;hive.server2.use.SSL=false")

	// An http, Kerberos registration (Hive 4, with instance.uri): the port
	// goes under both port keys, so a retry cannot keep another port.
	http := &Registration{
		Name: mustName(t, "serverUri=hs2.example.com:10001;version=4.0.1;sequence=0000000008"),
		Data: []byte("hive.server2.instance.uri=hs2.example.com:10001;hive.server2.authentication.kerberos.principal=hive/_HOST@EXAMPLE.COM;" +
			"hive.server2.transport.mode=http;hive.server2.thrift.http.path=cliservice;hive.server2.thrift.http.port=10001;" +
			"hive.server2.thrift.bind.host=hs2.example.com;hive.server2.authentication=KERBEROS;hive.server2.use.SSL=true"),
	}
	f("hs2.example.com:10001", http, false,
		"serverUri=hs2.example.com:10001;version=4.0.1;sequence=",
		"hive.server2.thrift.bind.host=hs2.example.com;hive.server2.thrift.port=10001;hive.server2.thrift.http.port=10001;hive.server2.instance.uri=hs2.example.com:10001;"+
			"hive.server2.authentication.kerberos.principal=hive/_HOST@EXAMPLE.COM;hive.server2.transport.mode=http;hive.server2.thrift.http.path=cliservice;"+
			"hive.server2.authentication=KERBEROS;hive.server2.use.SSL=true")

	// A Hive 1.2 registration ("host:port" data) has no settings to keep.
	legacy := &Registration{Name: mustName(t, "serverUri=hs3:10000;version=1.2.1;sequence=0000000001"), Data: []byte("hs3:10000")}
	f("hs3:10000", legacy, false, "serverUri=hs3:10000;version=1.2.1;sequence=",
		"hive.server2.thrift.bind.host=hs3;hive.server2.thrift.port=10000;hive.server2.instance.uri=hs3:10000")

	// IPv6: configs carry it; "host:port" data cannot.
	f("[fe80::1]:10000", nil, false, "serverUri=[fe80::1]:10000;version=slowpeer;sequence=",
		"hive.server2.thrift.bind.host=fe80::1;hive.server2.thrift.port=10000;hive.server2.instance.uri=[fe80::1]:10000")
	f("[fe80::1]:10000", nil, true, "", "")

	// Never publish what is not a server.
	f("hs1", nil, false, "", "")
	f("hs1:0", nil, false, "", "")
	f("h;s:10000", nil, false, "", "")
	f("h=s:10000", nil, false, "", "")
	f("h\xffs:10000", nil, false, "", "")
	f("", nil, false, "", "")
}

// FuzzRecord: a registration's data and name are outside input, and the
// server list comes from hook events. Whatever Record accepts sends the
// driver (fresh, or retrying after another server) exactly to the
// server, and keeps every setting of the registration the driver does not
// take the address from.
func FuzzRecord(f *testing.F) {
	f.Add("hs1.example.com:10000", "3.1.3", string(hs2Configs("10.0.0.5", 10000)), false, int32(0))
	f.Add("[::1]:10001", "4", "hive.server2.transport.mode=http;hive.server2.thrift.http.port=1", false, int32(10000))
	f.Add("hs1:10000", "", "hs9:1", true, int32(-1))
	f.Add("hs1:10000", "x", "hive.server2.transport.mode=HTTP;hive.server2.transport.mode=binary;=;a=b=c", false, int32(7))
	f.Fuzz(func(t *testing.T, server, version, regData string, plain bool, prevPort int32) {
		reg := &Registration{Name: Name{Server: server, Version: version}, Data: []byte(regData)}
		prefix, data, err := Record(server, reg, DefaultVersion, plain)
		if err != nil {
			return
		}
		name, err := ParseName(prefix + "0000000001")
		if err != nil || name.Server != server {
			t.Fatalf("Record(%q) prefix %q parses as %+v, %v", server, prefix, name, err)
		}
		for _, prev := range []jdbcParams{{}, {host: "old", hostSet: true, port: prevPort}} {
			p := prev
			if err := jdbcApply(data, &p); err != nil || p.endpoint() != server {
				t.Fatalf("Record(%q, %q) data %q: the driver, after %+v, lands on %s (%v)", server, regData, data, prev, p.endpoint(), err)
			}
		}
		if plain {
			return
		}
		host, port, _ := net.SplitHostPort(server)
		var regParams []Param
		if len(reg.Data) <= maxDataBytes {
			regParams, _ = ParseParams(reg.Data)
		}
		want := []Param{{BindHostKey, host}, {PortKey, port}}
		if i := slices.IndexFunc(regParams, func(p Param) bool { return p.Key == TransportModeKey }); i >= 0 && strings.EqualFold(regParams[i].Value, "http") {
			want = append(want, Param{HTTPPortKey, port})
		}
		want = append(want, Param{InstanceURIKey, server})
		for _, p := range regParams {
			if p.Key != "" && p.Key != BindHostKey && p.Key != PortKey && p.Key != HTTPPortKey && p.Key != InstanceURIKey {
				want = append(want, p)
			}
		}
		got, err := ParseParams(data)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Record(%q, %q) data %q: params %q, want %q", server, regData, data, got, want)
		}
	})
}
