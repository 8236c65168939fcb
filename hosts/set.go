package hosts

import (
	"net"
	"slices"
	"strconv"
)

// Set is the DataNodes a hosts file names. It is immutable, and safe for
// concurrent use; the zero Set and a nil *Set are empty.
type Set struct {
	entries []Entry
	// ports holds, per canonical host (a name as written, or an address),
	// the ports of its entries; 0 stands for every port.
	ports map[string][]int
}

// New returns the Set of entries (as Parse gives them). addrs, which may
// be nil, maps a host name of entries to the addresses it resolved to:
// each of them is matched as the name is.
func New(entries []Entry, addrs map[string][]string) *Set {
	s := &Set{entries: slices.Clone(entries), ports: make(map[string][]int, len(entries))}
	add := func(host string, port int) {
		if !slices.Contains(s.ports[host], port) {
			s.ports[host] = append(s.ports[host], port)
		}
	}
	for _, e := range entries {
		add(e.Host, e.Port)
		for _, a := range addrs[e.Host] {
			if h, ok := canonicalHost(a); ok {
				add(h, e.Port)
			}
		}
	}
	return s
}

// Len returns the number of entries.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// Entries returns the entries, in the file's order.
func (s *Set) Entries() []Entry {
	if s == nil {
		return nil
	}
	return slices.Clone(s.entries)
}

// Contains reports whether the DataNode with id node ("host:port") is in
// the set: an entry names its host without a port, or with its port.
//
// Reference: HostFileManager.HostSet.match.
func (s *Set) Contains(node string) bool {
	if s.Len() == 0 {
		return false
	}
	host, port, err := net.SplitHostPort(node)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return false
	}
	h, ok := canonicalHost(host)
	if !ok {
		return false
	}
	ports := s.ports[h]
	return slices.Contains(ports, 0) || slices.Contains(ports, n)
}

// ContainsHost reports whether an entry without a port names host: every
// DataNode there is in the set.
func (s *Set) ContainsHost(host string) bool {
	if s.Len() == 0 {
		return false
	}
	h, ok := canonicalHost(host)
	return ok && slices.Contains(s.ports[h], 0)
}

// Hosts returns, sorted, every host the set names, with or without a
// port: the names as written and the addresses they resolved to.
func (s *Set) Hosts() []string {
	if s.Len() == 0 {
		return nil
	}
	out := make([]string, 0, len(s.ports))
	for h := range s.ports {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}
