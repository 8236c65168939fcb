package discovery

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// This file emulates, independently of the package's own parsers, what
// the Hive JDBC driver does with serviceDiscoveryMode=zooKeeper, so tests
// can check that a Publisher's znodes send a real client where they
// should. It follows Hive's jdbc module (the same code is in Kyuubi's
// kyuubi-hive-jdbc):
//
//   - ZooKeeperHiveClientHelper.configureConnParams: getChildren of
//     "/" + zooKeeperNamespace, remove the znodes already rejected, fail
//     when none is left, pick one uniformly at random
//     (ThreadLocalRandom.nextInt(size)), then updateParamsWithZKServerNode;
//   - updateParamsWithZKServerNode: getData, decode as UTF-8; when
//     kvPattern finds no key=value the data is "host:port" (String.split
//     on ":" must give exactly 2 parts, the port through
//     Integer.parseInt), else applyConfs; the znode's name is never read
//     for the address, only remembered (currentHostZnodePath) to reject it
//     on a retry;
//   - applyConfs: for every kvPattern match in order,
//     hive.server2.thrift.bind.host sets the host, hive.server2.thrift.port
//     sets the port, hive.server2.thrift.http.port sets it only when the
//     port is not > 0, hive.server2.transport.mode sets the session's
//     transportMode only when absent; a bad number throws;
//   - Utils.updateConnParamsFromZooKeeper (after a failed connect): add
//     the current znode to the rejected ones and configure again, on the
//     same JdbcConnectionParams, so a host or port the new data does not
//     set stays the failed server's.
//
// A znode whose data is empty or does not parse fails the whole
// connection attempt (ZooKeeperHiveClientException); the driver does not
// skip it and try another.

// jdbcKV is ZooKeeperHiveClientHelper's kvPattern. Go's regexp finds
// the same successive matches as Java's Matcher.find here: the pattern has
// a single way to match at each position.
var jdbcKV = regexp.MustCompile(`([^=;]*)=([^;]*)[;]?`)

// jdbcParams is the part of the driver's JdbcConnectionParams that
// ZooKeeper discovery reads and writes.
type jdbcParams struct {
	host          string
	hostSet       bool // false: Java null
	port          int32
	transportMode string // session var transportMode, "" when absent
	current       string // currentHostZnodePath
	rejected      []string
}

// endpoint is where the driver connects: host + ":" + port as Java
// prints them ("null" for no host), with an IPv6 host in brackets.
func (p *jdbcParams) endpoint() string {
	host := "null"
	if p.hostSet {
		host = p.host
	}
	return net.JoinHostPort(host, strconv.Itoa(int(p.port)))
}

// jdbcConfigure follows ZooKeeperHiveClientHelper.configureConnParams;
// pick stands for ThreadLocalRandom.nextInt.
func jdbcConfigure(conn *zk.Conn, namespace string, p *jdbcParams, pick func(n int) int) error {
	ns := "/" + namespace
	children, _, err := conn.Children(ns)
	if err != nil {
		return fmt.Errorf("Unable to retrive HS2 host information from ZooKeeper: %w", err)
	}
	children = slices.DeleteFunc(children, func(c string) bool { return slices.Contains(p.rejected, c) })
	if len(children) == 0 {
		return errors.New("No more HiveServer2 URIs from ZooKeeper to attempt")
	}
	node := children[pick(len(children))]
	p.current = node
	data, _, err := conn.Get(ns + "/" + node)
	if err != nil {
		return fmt.Errorf("Unable to read HiveServer2 configs from ZooKeeper: %w", err)
	}
	return jdbcApply(data, p)
}

// jdbcRetry follows Utils.updateConnParamsFromZooKeeper.
func jdbcRetry(conn *zk.Conn, namespace string, p *jdbcParams, pick func(n int) int) error {
	p.rejected = append(p.rejected, p.current)
	return jdbcConfigure(conn, namespace, p, pick)
}

// jdbcApply follows updateParamsWithZKServerNode after getData.
func jdbcApply(data []byte, p *jdbcParams) error {
	s := strings.ToValidUTF8(string(data), "\uFFFD") // new String(bytes, UTF_8)
	if !jdbcKV.MatchString(s) {
		split := javaSplitColon(s)
		if len(split) != 2 {
			return fmt.Errorf("Unable to parse HiveServer2 URI from ZooKeeper data: %s", s)
		}
		port, err := strconv.ParseInt(split[1], 10, 32) // Integer.parseInt
		if err != nil {
			return fmt.Errorf("NumberFormatException: %w", err)
		}
		p.host, p.hostSet, p.port = split[0], true, int32(port)
		return nil
	}
	for _, m := range jdbcKV.FindAllStringSubmatch(s, -1) {
		key, value := m[1], m[2]
		if key == "hive.server2.thrift.bind.host" {
			p.host, p.hostSet = value, true
		}
		if key == "hive.server2.transport.mode" && p.transportMode == "" {
			p.transportMode = value
		}
		if key == "hive.server2.thrift.port" {
			port, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return fmt.Errorf("NumberFormatException: %w", err)
			}
			p.port = int32(port)
		}
		if key == "hive.server2.thrift.http.port" && !(p.port > 0) {
			port, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return fmt.Errorf("NumberFormatException: %w", err)
			}
			p.port = int32(port)
		}
	}
	return nil
}

// javaSplitColon is Java's s.split(":"): no match gives {s}; otherwise the
// parts with trailing empty strings removed.
func javaSplitColon(s string) []string {
	if !strings.Contains(s, ":") {
		return []string{s}
	}
	parts := strings.Split(s, ":")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// jdbcLandings returns, for every child of /namespace the driver may
// pick, where a fresh client lands (an error text when it fails), sorted,
// and the children it saw (none when the namespace does not exist).
func jdbcLandings(t testing.TB, conn *zk.Conn, namespace string) (landings, children []string) {
	t.Helper()
	children, _, err := conn.Children("/" + namespace)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		t.Fatalf("list /%s: %v", namespace, err)
	}
	for i := range children {
		var p jdbcParams
		changed := false
		err := jdbcConfigure(conn, namespace, &p, func(n int) int {
			changed = n != len(children)
			return min(i, n-1)
		})
		switch {
		case changed:
			out := "error: the namespace changed under the lookup"
			landings = append(landings, out)
		case err != nil:
			landings = append(landings, "error: "+err.Error())
		default:
			landings = append(landings, p.endpoint())
		}
	}
	slices.Sort(landings)
	return landings, children
}

// TestJDBCEmulation pins the driver's reading of znode data, the
// reference the package's Endpoint and Record are tested against.
// Reference: ZooKeeperHiveClientHelper.applyConfs.
func TestJDBCEmulation(t *testing.T) {
	f := func(data string, prev jdbcParams, want string) {
		t.Helper()
		p := prev
		got := ""
		if err := jdbcApply([]byte(data), &p); err != nil {
			got = "error"
		} else {
			got = p.endpoint()
		}
		if got != want {
			t.Errorf("data %q after %+v: lands on %s, want %s", data, prev, got, want)
		}
	}
	var fresh jdbcParams
	f("hs1:10000", fresh, "hs1:10000")
	f("hs1:10000:", fresh, "hs1:10000") // split drops trailing empty strings
	f(":10000", fresh, ":10000")
	f("hs1", fresh, "error")
	f("", fresh, "error")
	f("hs1:port", fresh, "error")
	f("hs1:+10000", fresh, "hs1:10000")
	f("a:b:1", fresh, "error")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=10000", fresh, "hs1:10000")
	f("hive.server2.thrift.port=10000", fresh, "null:10000")
	f("hive.server2.thrift.bind.host=hs1", fresh, "hs1:0")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=x", fresh, "error")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.http.port=10001", fresh, "hs1:10001")
	// thrift.port always wins; http.port only fills an unset port.
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.http.port=10001;hive.server2.thrift.port=10000", fresh, "hs1:10000")
	f("hive.server2.thrift.bind.host=hs1;hive.server2.thrift.port=10000;hive.server2.thrift.http.port=10001", fresh, "hs1:10000")
	// A value may hold '=': only the first one cuts.
	f("x=y=z;hive.server2.thrift.bind.host=h=1;hive.server2.thrift.port=1", fresh, "h=1:1")
	// Fields without '=' are skipped.
	f("junk;hive.server2.thrift.bind.host=hs1;;hive.server2.thrift.port=1;more junk", fresh, "hs1:1")
	// On a retry the failed server's port stays unless thrift.port sets
	// it: HiveServer2's own http-mode data (http.port only) keeps the old
	// port. Reference: Utils.updateConnParamsFromZooKeeper.
	old := jdbcParams{host: "hs1", hostSet: true, port: 10000}
	f("hive.server2.thrift.bind.host=hs2;hive.server2.transport.mode=http;hive.server2.thrift.http.port=10001", old, "hs2:10000")
	f("hive.server2.thrift.bind.host=hs2;hive.server2.thrift.port=10001", old, "hs2:10001")
}
