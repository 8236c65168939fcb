package discovery

import (
	"cmp"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// Member is one service replica registered under ROOT/namenodes, in the
// format of Kyuubi's and HiveServer2's registrations:
//
//	name: serverUri=HOST:PORT;version=V[;scheme=https];sequence=NNNNNNNNNN
//	data: HOST:PORT
//
// Reference: Kyuubi ZookeeperDiscoveryClient.createPersistentNode and
// EtcdDiscoveryClient.createPersistentNode (research notes §1, §2).
type Member struct {
	// Server is the replica's -advertise address, "host:port".
	Server string
	// Scheme is "http", or "https" when the replica serves TLS.
	Scheme string
	// Version is the slowpeer version that registered.
	Version string
	// Sequence is the ten-digit counter of the name, "" before
	// registration.
	Sequence string
}

// schemeKey is the name attribute of a replica that serves https; one
// that serves http writes none.
const schemeKey = "scheme"

// URL is the replica's base URL, as -namenode takes it.
func (m Member) URL() string { return m.Scheme + "://" + m.Server }

// Prefix is the name up to the counter: what ZooKeeper is asked to create
// EPHEMERAL_SEQUENTIAL, and the exact prefix under which etcd's emulated
// sequence is counted.
func (m Member) Prefix() string {
	s := nameServerKey + "=" + m.Server + ";" + nameVersionKey + "=" + m.Version + ";"
	if m.Scheme == "https" {
		s += schemeKey + "=https;"
	}
	return s + nameSequenceKey + "="
}

// Name is the whole node name: Prefix and the counter.
func (m Member) Name() string { return m.Prefix() + m.Sequence }

// Data is the node's data: the address alone, as Kyuubi writes it.
func (m Member) Data() []byte { return []byte(m.Server) }

// validate checks a Member before it registers.
func (m Member) validate() error {
	if err := (Name{Server: m.Server, Version: m.Version}).Validate(); err != nil {
		return err
	}
	if m.Scheme != "http" && m.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", m.Scheme)
	}
	return nil
}

// ParseMember reads a registration: its node name and its data. The
// address comes from the data (as Kyuubi's and Hive's clients take it),
// which must be "host:port"; the name gives the version, the scheme and
// the counter. Both are outside input: a bad one is an error, never a
// panic.
func ParseMember(name string, data []byte) (Member, error) {
	n, err := ParseName(name)
	if err != nil {
		return Member{}, err
	}
	m := Member{Server: n.Server, Scheme: "http", Version: n.Version, Sequence: n.Sequence}
	for field := range strings.SplitSeq(name, ";") {
		if k, v, _ := strings.Cut(field, "="); k == schemeKey {
			if v != "http" && v != "https" {
				return Member{}, fmt.Errorf("registration %q: scheme %q is not http or https", name, v)
			}
			m.Scheme = v
		}
	}
	server := strings.TrimSpace(string(data))
	if host, port, err := net.SplitHostPort(server); err != nil || host == "" || port == "" {
		return Member{}, fmt.Errorf("registration %q: data %q are not host:port", name, clipData(data))
	}
	if err := reports.ValidateNode(server); err != nil {
		return Member{}, fmt.Errorf("registration %q: data: %w", name, err)
	}
	m.Server = server
	return m, nil
}

// clipData bounds what an error quotes of outside data.
func clipData(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}

// parseMembers reads the children of ROOT/namenodes, (name, data) each,
// skipping what does not parse (lock keys among them) and sorting by
// counter then name; it returns the skipped names too.
func parseMembers(children map[string][]byte) (members []Member, bad []string) {
	for name, data := range children {
		m, err := ParseMember(name, data)
		if err != nil {
			bad = append(bad, name)
			continue
		}
		members = append(members, m)
	}
	slices.SortFunc(members, func(a, b Member) int {
		return cmp.Or(cmp.Compare(a.Sequence, b.Sequence), cmp.Compare(a.Name(), b.Name()))
	})
	slices.Sort(bad)
	return members, bad
}

// MemberURLs returns the base URLs of members, without repeats, in order.
func MemberURLs(members []Member) []string {
	var out []string
	for _, m := range members {
		if u := m.URL(); !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}
