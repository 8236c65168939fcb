package discovery

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slowpeer/slowpeer/reports"
)

// Name is the name of a HiveServer2 registration znode, a child of
// /<namespace>:
//
//	serverUri=host:port;version=V;sequence=NNNNNNNNNN
//
// HiveServer2 creates it EPHEMERAL_SEQUENTIAL with the name up to
// "sequence=" (Prefix); ZooKeeper appends the ten-digit counter.
// Reference: HiveServer2.start (Hive 3, 4) and
// HiveServer2.addServerInstanceToZooKeeper (Hive 1, 2).
type Name struct {
	// Server is the HiveServer's "host:port" as reports.ValidateNode
	// accepts it: HiveServer2's serverUri, with an IPv6 host put in
	// brackets.
	Server string
	// Version is the Hive version that registered, "" when the name has
	// none.
	Version string
	// Sequence is the counter ZooKeeper appended, as it wrote it (%010d
	// of a 32-bit counter), "" when the name has none.
	Sequence string
}

// Name field keys, as HiveServer2 writes them.
const (
	nameServerKey   = "serverUri"
	nameVersionKey  = "version"
	nameSequenceKey = "sequence"
)

// ParseName reads a registration znode name. The fields are ";"-separated
// key=value pairs; serverUri is required, version and sequence may be
// missing, and keys it does not know (Kyuubi adds some) are ignored. A
// name is outside input: every rule broken is an error, never a panic.
func ParseName(s string) (Name, error) {
	if !utf8.ValidString(s) {
		return Name{}, fmt.Errorf("znode name %q is not UTF-8", s)
	}
	var n Name
	var seen [3]bool
	for field := range strings.SplitSeq(s, ";") {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			return Name{}, fmt.Errorf("znode name %q: field %q is not key=value", s, field)
		}
		i := -1
		switch key {
		case nameServerKey:
			i = 0
		case nameVersionKey:
			i = 1
		case nameSequenceKey:
			i = 2
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return Name{}, fmt.Errorf("znode name %q: %s twice", s, key)
		}
		seen[i] = true
		switch i {
		case 0:
			server, err := serverFromURI(value)
			if err != nil {
				return Name{}, fmt.Errorf("znode name %q: %w", s, err)
			}
			n.Server = server
		case 1:
			if err := checkVersion(value); err != nil {
				return Name{}, fmt.Errorf("znode name %q: %w", s, err)
			}
			n.Version = value
		case 2:
			if !validSequence(value) {
				return Name{}, fmt.Errorf("znode name %q: sequence %q is not a number", s, value)
			}
			n.Sequence = value
		}
	}
	if !seen[0] {
		return Name{}, fmt.Errorf("znode name %q: no serverUri", s)
	}
	return n, nil
}

// Prefix is the name HiveServer2 asks ZooKeeper to create, without the
// counter: "serverUri=host:port;version=V;sequence=". Check the name with
// Validate first.
func (n Name) Prefix() string {
	return nameServerKey + "=" + n.Server + ";" + nameVersionKey + "=" + n.Version + ";" + nameSequenceKey + "="
}

// String is the whole name: Prefix followed by the counter, or without
// the sequence field when n has no counter.
func (n Name) String() string {
	if n.Sequence == "" {
		return nameServerKey + "=" + n.Server + ";" + nameVersionKey + "=" + n.Version
	}
	return n.Prefix() + n.Sequence
}

// Validate reports an error unless ParseName would read n.String() back as
// n.
func (n Name) Validate() error {
	if !utf8.ValidString(n.Server) || !utf8.ValidString(n.Version) {
		return fmt.Errorf("name %q is not UTF-8", n.String())
	}
	if err := reports.ValidateNode(n.Server); err != nil {
		return err
	}
	if strings.ContainsAny(n.Server, ";=") {
		return fmt.Errorf("server %q has a ';' or '='", n.Server)
	}
	if err := checkVersion(n.Version); err != nil {
		return err
	}
	if n.Sequence != "" && !validSequence(n.Sequence) {
		return fmt.Errorf("sequence %q is not a number", n.Sequence)
	}
	return nil
}

// newer reports whether n was registered after m, both with the same
// parent: ZooKeeper's counter only grows (until it wraps at 2^31, which
// no namespace of HiveServers reaches).
func (n Name) newer(m Name) bool {
	a, _ := strconv.ParseInt(n.Sequence, 10, 64)
	b, _ := strconv.ParseInt(m.Sequence, 10, 64)
	if a != b {
		return a > b
	}
	return n.String() > m.String()
}

// serverFromURI turns HiveServer2's serverUri (getCanonicalHostName() +
// ":" + port, so an IPv6 host comes without brackets) into a node id that
// reports.ValidateNode accepts.
func serverFromURI(uri string) (string, error) {
	i := strings.LastIndexByte(uri, ':')
	if i < 0 {
		return "", fmt.Errorf("serverUri %q is not host:port", uri)
	}
	host, port := uri[:i], uri[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if host == "" || strings.ContainsAny(host, "[]=") {
		return "", fmt.Errorf("serverUri %q has a bad host", uri)
	}
	id := net.JoinHostPort(host, port)
	if err := reports.ValidateNode(id); err != nil {
		return "", fmt.Errorf("serverUri %q: %w", uri, err)
	}
	return id, nil
}

// checkVersion accepts what can sit between "version=" and ";" of a znode
// name: no ';' and no '/' (ZooKeeper's path separator), no control
// characters.
func checkVersion(v string) error {
	if len(v) > 100 {
		return errors.New("version is longer than 100 bytes")
	}
	for _, c := range v {
		if c < ' ' || c == 0x7f || c == ';' || c == '/' {
			return fmt.Errorf("version %q has a bad character", v)
		}
	}
	return nil
}

// validSequence accepts what ZooKeeper appends: String.format("%010d") of
// a 32-bit counter.
func validSequence(s string) bool {
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil && s[0] != '+'
}
