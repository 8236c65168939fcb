package diagnosis

import (
	"strings"
	"testing"
)

func TestParseTopology(t *testing.T) {
	const table = `# rack table, as net.topology.table.file.name names it
10.0.0.5	/rack1
10.0.0.6 /rack1   # trailing comment
DN7.Example.COM. /dc1/rack2

  2001:db8::1   /dc1/rack2
::ffff:10.0.0.9 /rack3
10.0.0.5 /rack1
`
	topo, err := ParseTopology(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	if topo.Len() != 5 {
		t.Errorf("Len() = %d, want 5", topo.Len())
	}
	f := func(node, want string) {
		t.Helper()
		if got := topo.Rack(node); got != want {
			t.Errorf("Rack(%q) = %q, want %q", node, got, want)
		}
	}
	f("10.0.0.5:9866", "/rack1")
	f("10.0.0.6:1", "/rack1")
	f("10.0.0.6", "/rack1")
	f("dn7.example.com:9866", "/dc1/rack2")
	f("dn7.example.com.:9866", "/dc1/rack2")
	f("[2001:db8:0::1]:9866", "/dc1/rack2")
	f("10.0.0.9:9866", "/rack3")
	f("[::ffff:10.0.0.5]:9866", "/rack1")
	f("10.0.0.7:9866", "")
	f("dn8.example.com:9866", "")
	f("", "")
	var zero Topology
	if zero.Rack("10.0.0.5:9866") != "" || zero.Len() != 0 {
		t.Error("the zero Topology knows a host")
	}
}

func TestParseTopologyErrors(t *testing.T) {
	f := func(table, want string) {
		t.Helper()
		_, err := ParseTopology(strings.NewReader(table))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTopology(%q) = %v, want an error with %q", table, err, want)
		}
	}
	f("10.0.0.5\n", `line 1: want two fields, "host rack", got 1`)
	f("# c\n\n10.0.0.5 /r1 /r2\n", `line 3: want two fields, "host rack", got 3`)
	f("10.0.0.5 rack1\n", `line 1: rack "rack1" does not start with /`)
	f("10.0.0.5 /\n", `line 1: rack "/" does not start with / and a name`)
	f("dn$1 /r1\n", `line 1: host "dn$1": not an IP address or a host name`)
	f("fe80::1%eth0 /r1\n", "line 1: host \"fe80::1%eth0\": an address with a zone")
	f("10.0.0.5 /r1\nx /r\n10.0.0.5 /r2\n", "line 3: host 10.0.0.5 is already in rack /r1")
	f("A /r1\na. /r2\n", "line 2: host a. is already in rack /r1")
	f("10.0.0.5 /r\x01\n", "line 1: rack \"/r\\x01\" has a control character")
	f("10.0.0.5 /r\xff\n", "is not UTF-8")
	f("a /r\n"+strings.Repeat("x", MaxTopologyLineBytes+1)+"\n", "line 2: longer than 4096 bytes")
}

// FuzzParseTopology checks that any input either parses into a topology
// that gives every host its rack back, or fails with a line number.
func FuzzParseTopology(f *testing.F) {
	f.Add("10.0.0.5 /rack1\ndn6 /dc/rack2 # c\n")
	f.Add("# only a comment\n\n")
	f.Add("::1 /r\n[::1] /r\n")
	f.Add("a /r1\nA /r2\n")
	f.Add("x\ty\tz\n")
	f.Fuzz(func(t *testing.T, table string) {
		topo, err := ParseTopology(strings.NewReader(table))
		if err != nil {
			if !strings.Contains(err.Error(), "parse topology: line ") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		for line := range strings.Lines(table) {
			text, _, _ := strings.Cut(line, "#")
			fields := strings.Fields(text)
			if len(fields) == 0 {
				continue
			}
			if len(fields) != 2 {
				t.Fatalf("accepted line %q", line)
			}
			if got := topo.Rack(fields[0]); got != fields[1] {
				t.Fatalf("Rack(%q) = %q, want %q", fields[0], got, fields[1])
			}
		}
	})
}
