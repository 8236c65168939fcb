package discovery

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Registry kinds, the schemes of a registry URL and the "registry" field
// of GET /v1/cluster.
const (
	ZooKeeperKind = "zk"
	EtcdKind      = "etcd"
)

// DefaultRoot is the root of a registry URL that names none: the replicas
// register under DefaultRoot + "/namenodes".
const DefaultRoot = "/slowpeer"

// RegistryURL is where service replicas register: a ZooKeeper ensemble or
// an etcd cluster, and the root path under which they keep their
// registrations (ROOT/namenodes) and their election (ROOT/leader).
type RegistryURL struct {
	// Kind is ZooKeeperKind or EtcdKind.
	Kind string
	// Servers are the ensemble's or cluster's "host:port" addresses.
	Servers []string
	// Root is a path such as "/slowpeer": a leading slash, no trailing
	// one.
	Root string
	// User and Password, when User is set, are the credentials of the
	// URL (zk://USER:PASSWORD@H:P/ROOT). ZooKeeper: digest
	// authentication, as Kyuubi's kyuubi.ha.zookeeper.auth.type=DIGEST,
	// and the znodes a Replica creates readable by all and writable by
	// that user alone (Kyuubi's READ_ACL_UNSAFE + CREATOR_ALL_ACL); a
	// reader needs none. etcd: the user of etcd's authentication.
	User, Password string
	// TLS, when set, is the TLS configuration of an etcd client (the
	// slowpeer.registry.etcd.ssl.* keys): etcd is reached over TLS only.
	// Nil: plain. ParseRegistryURL leaves it nil.
	TLS *tls.Config
}

// IsRegistryURL reports whether s is written as a registry URL (zk:// or
// etcd://) rather than as a service's base URL; ParseRegistryURL says
// whether it is a good one.
func IsRegistryURL(s string) bool {
	return strings.HasPrefix(s, ZooKeeperKind+"://") || strings.HasPrefix(s, EtcdKind+"://")
}

// ParseRegistryURL reads "zk://[USER:PASSWORD@]H:P[,H:P]/ROOT" or
// "etcd://[USER:PASSWORD@]H:P[,H:P]/ROOT" (the -registry flag, and
// -namenode SERVICES written so). ROOT may be left out ("zk://h:2181",
// DefaultRoot); a ZooKeeper server without port means 2181, an etcd one
// 2379. USER and PASSWORD are percent-decoded (write '@' as %40, '/' as
// %2F, ':' in USER as %3A); errors never show the password.
func ParseRegistryURL(s string) (RegistryURL, error) {
	kind, rest, ok := strings.Cut(s, "://")
	if !ok || kind != ZooKeeperKind && kind != EtcdKind {
		return RegistryURL{}, fmt.Errorf("registry %q is not zk://H:P[,H:P]/ROOT or etcd://H:P[,H:P]/ROOT", redactURL(s))
	}
	hosts, root, _ := strings.Cut(rest, "/")
	u := RegistryURL{Kind: kind, Root: DefaultRoot}
	if at := strings.LastIndex(hosts, "@"); at >= 0 {
		user, pass, err := ParseCredentials(hosts[:at])
		if err != nil {
			return RegistryURL{}, fmt.Errorf("registry %q: %w", redactURL(s), err)
		}
		u.User, u.Password, hosts = user, pass, hosts[at+1:]
	}
	s = u.Kind + "://" + hosts + "/" + root // for the errors below
	if root = strings.Trim(root, "/"); root != "" {
		p, err := namespacePath(root)
		if err != nil {
			return RegistryURL{}, fmt.Errorf("registry %q: root: %w", s, err)
		}
		u.Root = p
	}
	if strings.ContainsAny(u.Root, "?#;") {
		return RegistryURL{}, fmt.Errorf("registry %q: the root has a '?', '#' or ';'", s)
	}
	port := "2181"
	if kind == EtcdKind {
		port = "2379"
	}
	for h := range strings.SplitSeq(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return RegistryURL{}, fmt.Errorf("registry %q: an empty server", s)
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, port)
		}
		host, p, err := net.SplitHostPort(h)
		if err != nil || host == "" || p == "" || strings.ContainsAny(h, " @?#") {
			return RegistryURL{}, fmt.Errorf("registry %q: server %q is not host:port", s, h)
		}
		u.Servers = append(u.Servers, h)
	}
	return u, nil
}

// String writes u back as a registry URL, for logs and errors: the
// password, if any, as xxxxx (as net/url's URL.Redacted writes it).
func (u RegistryURL) String() string {
	auth := ""
	if u.User != "" {
		auth = strings.ReplaceAll(url.PathEscape(u.User), ":", "%3A") + ":xxxxx@"
	}
	return u.Kind + "://" + auth + strings.Join(u.Servers, ",") + u.Root
}

// ParseCredentials reads the credentials of a registry URL,
// "USER:PASSWORD", both percent-encoded and not empty. Its error never
// shows them.
func ParseCredentials(s string) (user, password string, err error) {
	rawUser, rawPass, ok := strings.Cut(s, ":")
	if !ok || rawUser == "" || rawPass == "" {
		return "", "", errors.New("credentials are not USER:PASSWORD")
	}
	if user, err = url.PathUnescape(rawUser); err == nil {
		password, err = url.PathUnescape(rawPass)
	}
	if err != nil || strings.ContainsAny(user+password, "\x00\n") {
		return "", "", errors.New("credentials are not percent-encoded USER:PASSWORD")
	}
	return user, password, nil
}

// redactURL hides the password of a registry URL written by a user, for
// an error.
func redactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	hosts, root, slash := strings.Cut(rest, "/")
	at := strings.LastIndex(hosts, "@")
	if at < 0 {
		return s
	}
	user, _, _ := strings.Cut(hosts[:at], ":")
	out := scheme + "://" + user + ":xxxxx@" + hosts[at+1:]
	if slash {
		out += "/" + root
	}
	return out
}

// MembersPath is where the replicas register: ROOT/namenodes.
func (u RegistryURL) MembersPath() string { return u.Root + "/namenodes" }

// LeaderPath is where the replicas elect their leader: ROOT/leader.
func (u RegistryURL) LeaderPath() string { return u.Root + "/leader" }

// validate checks a RegistryURL built by hand.
func (u RegistryURL) validate() error {
	if u.Kind != ZooKeeperKind && u.Kind != EtcdKind {
		return fmt.Errorf("registry kind %q is not %s or %s", u.Kind, ZooKeeperKind, EtcdKind)
	}
	if len(u.Servers) == 0 {
		return errors.New("registry has no server")
	}
	if _, err := namespacePath(u.Root); err != nil || !strings.HasPrefix(u.Root, "/") {
		return fmt.Errorf("registry root %q is not a path", u.Root)
	}
	return nil
}
