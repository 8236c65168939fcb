package discovery

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// Registration is what one HiveServer2 wrote about itself in ZooKeeper:
// the name and the data of its znode.
type Registration struct {
	// Name is the znode's name, parsed.
	Name Name
	// Data is the znode's data as HiveServer2 wrote it: configs
	// (ParseParams) or, from Hive before 1.3 or with
	// hive.server2.zookeeper.publish.configs=false, "host:port". The
	// caller must not modify it.
	Data []byte
}

// Record builds the znode a Publisher writes to send JDBC clients to
// server ("host:port", as reports.ValidateNode accepts it): its name
// prefix (ZooKeeper appends the counter) and its data.
//
// The data are HiveServer2's own configs with the address replaced: when
// reg is given and holds configs, every pair of it except the address
// (hive.server2.thrift.bind.host, hive.server2.thrift.port,
// hive.server2.thrift.http.port, hive.server2.instance.uri) is kept in
// its order, so the driver still learns the transport mode, HTTP path,
// authentication, Kerberos principal, SASL QOP and SSL of the server; the
// address is written first: bind.host = the host, hive.server2.thrift.port
// = the port (and hive.server2.thrift.http.port too when the transport
// mode is http, as HiveServer2 writes it then), instance.uri = server.
// The port always goes under hive.server2.thrift.port because the driver
// reads hive.server2.thrift.http.port only while it holds no port: on a
// retry (Utils.updateConnParamsFromZooKeeper) it still holds the port of
// the server that failed, and would keep it. Without configs to copy the
// data are just the address. With plain set, the data are "host:port", as
// with hive.server2.zookeeper.publish.configs=false (drivers before Hive
// 1.3 read only that; an IPv6 host cannot be written so).
//
// The name carries reg's version, else version. Record checks its result
// the way the driver reads it (Endpoint): data that would send a client
// elsewhere is a bug, and panics.
func Record(server string, reg *Registration, version string, plain bool) (prefix string, data []byte, err error) {
	if err := reports.ValidateNode(server); err != nil {
		return "", nil, err
	}
	host, port, _ := net.SplitHostPort(server)
	if strings.ContainsAny(server, ";=") {
		return "", nil, fmt.Errorf("server %q has a ';' or '='", server)
	}
	if reg != nil && reg.Name.Version != "" && checkVersion(reg.Name.Version) == nil {
		version = reg.Name.Version
	}
	name := Name{Server: server, Version: version}
	if err := name.Validate(); err != nil {
		return "", nil, err
	}
	if plain {
		if strings.Contains(host, ":") {
			return "", nil, fmt.Errorf("server %q: an IPv6 host cannot be written as host:port data", server)
		}
		data = []byte(host + ":" + port)
	} else {
		data, err = FormatParams(recordParams(server, host, port, reg))
		if err != nil {
			return "", nil, fmt.Errorf("data for %s: %w", server, err)
		}
	}
	h, p, err := Endpoint(data)
	if err != nil || h != host || strconv.Itoa(p) != port {
		panic(fmt.Sprintf("BUG: data %q for %s read back as %s:%d (%v)", data, server, h, p, err))
	}
	return name.Prefix(), data, nil
}

// recordParams is the address of server followed by what reg says beyond
// its address.
func recordParams(server, host, port string, reg *Registration) []Param {
	var kept []Param
	http, modeSeen := false, false
	if reg != nil && len(reg.Data) <= maxDataBytes {
		if ps, err := ParseParams(reg.Data); err == nil {
			for _, p := range ps {
				switch p.Key {
				case BindHostKey, PortKey, HTTPPortKey, InstanceURIKey, "":
					continue
				case TransportModeKey:
					// The driver takes the first one (applyConfs puts
					// transportMode only when absent).
					if !modeSeen {
						http, modeSeen = strings.EqualFold(p.Value, "http"), true
					}
				}
				kept = append(kept, p)
			}
		}
	}
	out := make([]Param, 0, 4+len(kept))
	out = append(out, Param{BindHostKey, host}, Param{PortKey, port})
	if http {
		out = append(out, Param{HTTPPortKey, port})
	}
	out = append(out, Param{InstanceURIKey, server})
	return append(out, kept...)
}

// sameRecord reports whether a znode named child with data is the record
// (prefix, data): the same name up to ZooKeeper's counter, the same data.
func sameRecord(child string, data []byte, prefix string, want []byte) bool {
	seq, ok := strings.CutPrefix(child, prefix)
	return ok && validSequence(seq) && bytes.Equal(data, want)
}
