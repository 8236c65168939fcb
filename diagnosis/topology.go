package diagnosis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"unicode/utf8"
)

// MaxTopologyLineBytes is the longest line ParseTopology accepts.
const MaxTopologyLineBytes = 4096

// Topology maps hosts to racks. The zero value knows no hosts. A Topology
// is not changed after ParseTopology returns it, so it is safe for
// concurrent reads.
type Topology struct {
	byAddr map[netip.Addr]string // address (unmapped, no zone) → rack
	byName map[string]string     // name (lower case, no final dot) → rack
}

// ParseTopology reads a rack table in the format of Hadoop's TableMapping
// (the file named by net.topology.table.file.name): one host and its rack
// a line, separated by blanks, such as
//
//	10.0.0.5   /rack1
//	dn6.example.com /dc1/rack2
//
// Text from "#" to the end of a line is a comment; blank lines are
// skipped. A host is an IP address or a name; names match without regard
// to case or a final dot, addresses in any spelling (an IPv4-mapped IPv6
// address is its IPv4 address). A rack starts with "/", as Hadoop's
// NetworkTopology requires. Unlike TableMapping, which skips a bad line
// with a warning, ParseTopology returns an error naming the line: a line
// without exactly two fields, a bad host or rack, or a host given two
// racks. No name is resolved: a node matches a line only if both name its
// host the same way, by address or by name.
func ParseTopology(r io.Reader) (Topology, error) {
	t := Topology{byAddr: make(map[netip.Addr]string), byName: make(map[string]string)}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), MaxTopologyLineBytes)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return Topology{}, fmt.Errorf("parse topology: line %d: want two fields, \"host rack\", got %d", line, len(fields))
		}
		addr, name, err := canonicalHost(fields[0])
		if err != nil {
			return Topology{}, fmt.Errorf("parse topology: line %d: %w", line, err)
		}
		rack := fields[1]
		if err := validateRack(rack); err != nil {
			return Topology{}, fmt.Errorf("parse topology: line %d: %w", line, err)
		}
		old, dup := t.byName[name]
		if addr.IsValid() {
			old, dup = t.byAddr[addr]
		}
		if dup && old != rack {
			return Topology{}, fmt.Errorf("parse topology: line %d: host %s is already in rack %s", line, fields[0], old)
		}
		if addr.IsValid() {
			t.byAddr[addr] = rack
		} else {
			t.byName[name] = rack
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Topology{}, fmt.Errorf("parse topology: line %d: longer than %d bytes", line+1, MaxTopologyLineBytes)
		}
		return Topology{}, fmt.Errorf("parse topology: line %d: %w", line+1, err)
	}
	return t, nil
}

// Rack returns the rack of node, "host:port" or a bare host, or "" when
// the topology does not know its host.
func (t Topology) Rack(node string) string {
	if t.Len() == 0 {
		return ""
	}
	host := node
	if h, _, err := net.SplitHostPort(node); err == nil {
		host = h
	}
	addr, name, err := canonicalHost(host)
	switch {
	case err != nil:
		return ""
	case addr.IsValid():
		return t.byAddr[addr]
	}
	return t.byName[name]
}

// Len returns the number of hosts the topology knows.
func (t Topology) Len() int { return len(t.byAddr) + len(t.byName) }

// canonicalHost returns the form in which two spellings of one host are
// equal: an address without IPv4 mapping (and without a zone, refused),
// or else a name in lower case without a final dot.
func canonicalHost(host string) (netip.Addr, string, error) {
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, "", fmt.Errorf("host %q: an address with a zone is not a cluster host", host)
		}
		return a.Unmap(), "", nil
	}
	name := strings.TrimSuffix(host, ".")
	if name == "" || len(name) > 253 {
		return netip.Addr{}, "", fmt.Errorf("host %q: not an IP address or a host name", host)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return netip.Addr{}, "", fmt.Errorf("host %q: not an IP address or a host name", host)
		}
	}
	return netip.Addr{}, strings.ToLower(name), nil
}

// validateRack accepts a path such as "/rack1" or "/dc1/rack2".
func validateRack(rack string) error {
	if !strings.HasPrefix(rack, "/") || len(rack) < 2 {
		return fmt.Errorf("rack %q does not start with / and a name", rack)
	}
	if !utf8.ValidString(rack) {
		return fmt.Errorf("rack %q is not UTF-8", rack)
	}
	for _, c := range rack {
		if c < ' ' || c == 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("rack %q has a control character or a quote", rack)
		}
	}
	return nil
}
