package jmx

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Reference: DataNode.getSendPacketDownstreamAvgInfo,
// DataNodePeerMetrics.dumpSendPacketDownstreamAvgInfoAsJson and the
// "[%s]RollingAvgTime" template of MutableRollingAverages.
func TestPeerLatenciesFromCapture(t *testing.T) {
	got, err := PeerLatencies(readFixture(t, "datanode-jmx.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"10.0.0.3:9864": 1.8214285714285714, "10.0.0.4:9864": 2.0456140350877192,
		"10.0.0.5:9864": 48.25, "10.0.0.6:9864": 1.9337016574585635,
		"10.0.0.7:9864": 2.1102362204724407, "10.0.0.8:9864": 1.7681159420289856,
		"10.0.0.10:9864": 2.2531645569620253, "10.0.0.11:9864": 1.8913043478260869,
		"10.0.0.12:9864": 2.0079365079365079, "10.0.0.13:9864": 1.9702970297029703,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PeerLatencies = %v, want %v", got, want)
	}
}

func dataNodeInfo(v any) []Bean {
	return []Bean{
		{Name: "java.lang:type=Runtime"},
		{Name: DataNodeInfoBean, Attrs: []Attr{{"XceiverCount", json.Number("1")}, {SendPacketDownstreamAvgInfo, v}}},
	}
}

func TestPeerLatencies(t *testing.T) {
	f := func(v any, want map[string]float64) {
		t.Helper()
		got, err := PeerLatencies(dataNodeInfo(v))
		if err != nil {
			t.Fatalf("PeerLatencies(%#v): %v", v, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("PeerLatencies(%#v) = %v, want %v", v, got, want)
		}
	}
	// No pipeline lately: an empty object, which is no error.
	f(`{}`, map[string]float64{})
	f(` { } `, map[string]float64{})
	f(`{"[10.0.0.5:9864]RollingAvgTime":48.25}`, map[string]float64{"10.0.0.5:9864": 48.25})
	f(`{"[10.0.0.5:9864]RollingAvgTime":0}`, map[string]float64{"10.0.0.5:9864": 0})
	f(`{"[10.0.0.5:9864]RollingAvgTime":-0.0}`, map[string]float64{"10.0.0.5:9864": 0})
	f(`{"[10.0.0.5:9864]RollingAvgTime":1E2}`, map[string]float64{"10.0.0.5:9864": 100})
	// The DataNodeMXBean javadoc example.
	f(`{"[185.164.159.81:9801]RollingAvgTime":504.867,
	    "[49.236.149.246:9801]RollingAvgTime":504.463,
	    "[84.125.113.65:9801]RollingAvgTime":497.954}`,
		map[string]float64{"185.164.159.81:9801": 504.867, "49.236.149.246:9801": 504.463, "84.125.113.65:9801": 497.954})
	// IPv6: Hadoop writes ipAddr + ":" + port with no brackets.
	f(`{"[2001:db8:0:0:0:0:0:5:9864]RollingAvgTime":3.5}`, map[string]float64{"[2001:db8::5]:9864": 3.5})
	f(`{"[::1:9864]RollingAvgTime":3.5}`, map[string]float64{"[::1]:9864": 3.5})
	// Host names, as slowpeer agents name peers, in lower case: Hadoop's
	// MutableRollingAverages capitalizes the first letter of a name.
	f(`{"[dn5.example.com:9866]RollingAvgTime":2,"[Dn6.Example.com:9866]RollingAvgTime":3}`,
		map[string]float64{"dn5.example.com:9866": 2, "dn6.example.com:9866": 3})
	// The bean may be named with its keys in any order.
	got, err := PeerLatencies([]Bean{{Name: "Hadoop:name=DataNodeInfo,service=DataNode",
		Attrs: []Attr{{SendPacketDownstreamAvgInfo, `{"[10.0.0.5:9864]RollingAvgTime":1}`}}}})
	if err != nil || got["10.0.0.5:9864"] != 1 {
		t.Fatalf("PeerLatencies with reordered bean name = %v, %v", got, err)
	}
}

func TestPeerLatenciesErrors(t *testing.T) {
	f := func(why string, beans []Bean, wantErr string) {
		t.Helper()
		got, err := PeerLatencies(beans)
		if err == nil {
			t.Fatalf("%s: PeerLatencies = %v, want an error", why, got)
		}
		if got != nil {
			t.Fatalf("%s: PeerLatencies returned latencies with its error: %v", why, got)
		}
		if !strings.HasPrefix(err.Error(), "read peer latencies: ") || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("%s: error %q, want it to contain %q", why, err, wantErr)
		}
	}
	g := func(why string, v any, wantErr string) {
		t.Helper()
		f(why, dataNodeInfo(v), wantErr)
	}
	f("no beans", nil, "no bean Hadoop:service=DataNode,name=DataNodeInfo")
	f("a NameNode's beans", readFixture(t, "namenode-jmx.json"), "no bean")
	f("no attribute", []Bean{{Name: DataNodeInfoBean, Attrs: []Attr{{"XceiverCount", 1}}}}, "has no SendPacketDownstreamAvgInfo")
	g("peer stats disabled", nil, "dfs.datanode.peer.stats.enabled is false")
	// The lasting conditions are told apart with errors.Is.
	is := func(beans []Bean, want error) {
		t.Helper()
		if _, err := PeerLatencies(beans); !errors.Is(err, want) {
			t.Fatalf("PeerLatencies = %v, want %v", err, want)
		}
	}
	is(nil, ErrNoDataNodeInfo)
	is([]Bean{{Name: DataNodeInfoBean}}, ErrNoPeerStats)
	is(dataNodeInfo(nil), ErrPeerStatsDisabled)
	g("an object, not a string", map[string]any{"[10.0.0.5:9864]RollingAvgTime": json.Number("1")}, "is an object, not a string")
	g("a number", json.Number("1"), "is a number, not a string")
	g("empty string", ``, "unexpected EOF")
	g("truncated", `{"[10.0.0.5:9864]RollingAvgTime":1.5`, "unexpected EOF")
	g("not JSON", `Failed to dump to Json.`, "invalid character")
	g("an array", `[]`, "not an object")
	g("trailing data", `{}{}`, "data after the object")
	g("a string value", `{"[10.0.0.5:9864]RollingAvgTime":"1.5"}`, "is a string, not a number")
	g("Jackson's quoted NaN", `{"[10.0.0.5:9864]RollingAvgTime":"NaN"}`, "not a number")
	g("bare NaN", `{"[10.0.0.5:9864]RollingAvgTime":NaN}`, "invalid character 'N'")
	g("null value", `{"[10.0.0.5:9864]RollingAvgTime":null}`, "is null, not a number")
	g("overflow", `{"[10.0.0.5:9864]RollingAvgTime":1e400}`, "not a finite number")
	g("negative", `{"[10.0.0.5:9864]RollingAvgTime":-1.5}`, "negative")
	g("peer twice", `{"[10.0.0.5:9864]RollingAvgTime":1,"[10.0.0.5:9864]RollingAvgTime":2}`, "given twice")
	g("same IPv6 peer twice", `{"[::1:9864]RollingAvgTime":1,"[0:0::1:9864]RollingAvgTime":2}`, "given twice")
	g("no brackets", `{"10.0.0.5:9864RollingAvgTime":1}`, "is not")
	g("another metric", `{"[10.0.0.5:9864]RollingAvgLatency":1}`, "is not")
	g("suffix only", `{"[10.0.0.5:9864]":1}`, "is not")
	g("no port", `{"[10.0.0.5]RollingAvgTime":1}`, "is not")
	g("bad host name", `{"[dn_5.example.com:9864]RollingAvgTime":1}`, "not an IP address or host name")
	g("host name with an empty label", `{"[dn5..com:9864]RollingAvgTime":1}`, "not an IP address or host name")
	g("host name with a hyphen at the end", `{"[dn5-:9864]RollingAvgTime":1}`, "not an IP address or host name")
	g("digits that are no IP", `{"[10.0.0.256:9864]RollingAvgTime":1}`, "not an IP address or host name")
	g("empty host", `{"[:9864]RollingAvgTime":1}`, "not an IP address")
	g("bracketed IPv6", `{"[[::1]:9864]RollingAvgTime":1}`, "not an IP address")
	g("port zero", `{"[10.0.0.5:0]RollingAvgTime":1}`, "not a port")
	g("port too big", `{"[10.0.0.5:65536]RollingAvgTime":1}`, "not a port")
	g("port with a sign", `{"[10.0.0.5:+9864]RollingAvgTime":1}`, "not a port")
	g("port with zeros", `{"[10.0.0.5:09864]RollingAvgTime":1}`, "not a port")
	g("empty port", `{"[10.0.0.5:]RollingAvgTime":1}`, "not a port")
}

func BenchmarkPeerLatencies(b *testing.B) {
	var s strings.Builder
	s.WriteByte('{')
	for i := range 50 {
		if i > 0 {
			s.WriteByte(',')
		}
		s.WriteString(`"[10.0.1.` + strconv.Itoa(i+1) + `:9864]RollingAvgTime":` + strconv.FormatFloat(1.5+float64(i)/7, 'g', -1, 64))
	}
	s.WriteByte('}')
	beans := dataNodeInfo(s.String())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PeerLatencies(beans); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPeerLatencies checks that PeerLatencies never panics, never returns
// a partial answer, and that what it accepts is consistent: finite,
// non-negative latencies under valid "ip:port" ids, which Hadoop's own
// format of the same map reads back identically.
func FuzzPeerLatencies(f *testing.F) {
	f.Add(`{"[10.0.0.5:9864]RollingAvgTime":48.25,"[10.0.0.6:9864]RollingAvgTime":1.93}`)
	f.Add(`{"[2001:db8::5:9864]RollingAvgTime":1e-3}`)
	f.Add(`{"[fe80::1%eth0:9864]RollingAvgTime":1}`)
	f.Add(`{}`)
	f.Add(`{"[10.0.0.5:9864]RollingAvgTime":NaN}`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := PeerLatencies(dataNodeInfo(s))
		if err != nil {
			if got != nil {
				t.Fatal("latencies returned with an error")
			}
			return
		}
		var again strings.Builder
		again.WriteByte('{')
		for i, peer := range slices.Sorted(maps.Keys(got)) {
			ms := got[peer]
			if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 || math.Signbit(ms) {
				t.Fatalf("latency %v for %s", ms, peer)
			}
			host, port, err := net.SplitHostPort(peer)
			if err != nil {
				t.Fatalf("peer id %q: %v", peer, err)
			}
			if _, err := netip.ParseAddr(host); err != nil && (!hostName(host) || strings.ToLower(host) != host) {
				t.Fatalf("peer id %q: neither an IP address nor a host name in lower case", peer)
			}
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				t.Fatalf("peer id %q: bad port", peer)
			}
			if i > 0 {
				again.WriteByte(',')
			}
			key, _ := json.Marshal("[" + host + ":" + port + "]RollingAvgTime")
			again.Write(key)
			again.WriteString(":" + strconv.FormatFloat(ms, 'g', -1, 64))
		}
		again.WriteByte('}')
		back, err := PeerLatencies(dataNodeInfo(again.String()))
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("re-reading %s: %v, %v; want %v", again.String(), back, err, got)
		}
	})
}

// Reference: DataNodePeerMetrics.dumpSendPacketDownstreamAvgInfoAsJson,
// a MetricsJsonBuilder (Jackson) over MutableRollingAverages' gauges.
func TestPeerAveragesJSON(t *testing.T) {
	f := func(avg map[string]float64, want string) {
		t.Helper()
		if got := PeerAveragesJSON(avg); got != want {
			t.Fatalf("PeerAveragesJSON(%v) = %s, want %s", avg, got, want)
		}
		if back, err := parsePeerAverages(want); err != nil || (len(avg) > 0 && !reflect.DeepEqual(back, avg)) {
			t.Fatalf("PeerAveragesJSON(%v) reads back as %v, %v", avg, back, err)
		}
	}
	f(nil, `{}`)
	f(map[string]float64{"10.0.0.5:9864": 2.75, "10.0.0.3:9864": 25, "[::1]:9866": 1e-4},
		`{"[10.0.0.3:9864]RollingAvgTime":25.0,"[10.0.0.5:9864]RollingAvgTime":2.75,"[::1:9866]RollingAvgTime":1.0E-4}`)
	f(map[string]float64{"dn5.example.com:9866": 12345678.5}, `{"[dn5.example.com:9866]RollingAvgTime":1.23456785E7}`)
}
