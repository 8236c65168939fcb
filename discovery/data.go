package discovery

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The keys of HiveServer2's znode data that the Hive JDBC driver reads
// (ZooKeeperHiveClientHelper.applyConfs) and that say where to connect.
// HiveServer2.addConfsToPublish writes them, with the transport mode, the
// authentication, the SASL QOP, the HTTP path and SSL.
const (
	// BindHostKey is the host the driver connects to.
	BindHostKey = "hive.server2.thrift.bind.host"
	// PortKey is the port the driver connects to.
	PortKey = "hive.server2.thrift.port"
	// HTTPPortKey is the port the driver connects to when PortKey did
	// not set one before it.
	HTTPPortKey = "hive.server2.thrift.http.port"
	// TransportModeKey is "binary", "http" or (Hive 4) "all".
	TransportModeKey = "hive.server2.transport.mode"
	// InstanceURIKey is the HiveServer's serverUri (Hive 4 publishes it;
	// the driver does not read it).
	InstanceURIKey = "hive.server2.instance.uri"
)

// maxDataBytes bounds the registration data a Publisher copies; what
// HiveServer2 writes is a few hundred bytes.
const maxDataBytes = 64 << 10

// Param is one key=value pair of HiveServer2's znode data.
type Param struct {
	Key, Value string
}

// ParseParams reads znode data the way the Hive JDBC driver does when it
// holds configs (Hive ≥ 1.3, hive.server2.zookeeper.publish.configs=true,
// the default): the driver's pattern ([^=;]*)=([^;]*);? found again and
// again, which amounts to the ";"-separated fields that contain a "=",
// each cut at its first "=". Fields without "=" are skipped, as the
// driver skips them. Data with no "=" at all is not configs (the driver
// reads it as "host:port", see Endpoint): ParseParams returns an error.
// Reference: ZooKeeperHiveClientHelper.updateParamsWithZKServerNode.
func ParseParams(data []byte) ([]Param, error) {
	if bytes.IndexByte(data, '=') < 0 {
		return nil, errors.New("znode data holds no key=value")
	}
	var ps []Param
	for field := range strings.SplitSeq(string(data), ";") {
		if k, v, ok := strings.Cut(field, "="); ok {
			ps = append(ps, Param{k, v})
		}
	}
	return ps, nil
}

// FormatParams writes params as HiveServer2 does (Guava's
// Joiner.on(';').withKeyValueSeparator("=")). A key must not hold '=' or
// ';' and a value must not hold ';', or the driver would read other pairs
// back; FormatParams reports that as an error.
func FormatParams(params []Param) ([]byte, error) {
	var b bytes.Buffer
	for i, p := range params {
		if p.Key == "" || strings.ContainsAny(p.Key, "=;") || strings.ContainsRune(p.Value, ';') {
			return nil, fmt.Errorf("param %q=%q cannot be written", p.Key, p.Value)
		}
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.Bytes(), nil
}

// Endpoint returns the host and port the Hive JDBC driver connects to
// after it picked a znode with this data, or an error where the driver
// fails or would connect to no usable address:
//
//   - data with a "=" is configs: the last hive.server2.thrift.bind.host
//     is the host; hive.server2.thrift.port sets the port (the last one
//     wins), hive.server2.thrift.http.port sets it only while no positive
//     port is set; a port that is not a Java int fails the lookup;
//   - other data is the "host:port" older HiveServers wrote: Java's
//     String.split(":") (trailing empty strings dropped) must give exactly
//     two parts, the second a Java int.
//
// Like the driver, Endpoint reads the data as UTF-8, with U+FFFD for
// bytes that are not.
//
// A missing host, or a port outside 1..65535, is an error here although
// the driver goes on to fail only at connect time. The driver never reads
// the znode's name, so neither does Endpoint.
// Reference: ZooKeeperHiveClientHelper.updateParamsWithZKServerNode,
// ZooKeeperHiveClientHelper.applyConfs.
func Endpoint(data []byte) (host string, port int, err error) {
	// The driver decodes the data as UTF-8 (new String(bytes, UTF_8)),
	// replacing what is not.
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if strings.IndexByte(text, '=') < 0 {
		parts := strings.Split(text, ":")
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) != 2 {
			return "", 0, fmt.Errorf("znode data %q is not host:port", data)
		}
		p, ok := javaParseInt(parts[1])
		if !ok {
			return "", 0, fmt.Errorf("znode data %q has a bad port", data)
		}
		return usable(parts[0], true, p)
	}
	ps, _ := ParseParams([]byte(text))
	hostSet := false
	port32 := int32(0)
	for _, p := range ps {
		switch {
		case p.Key == BindHostKey:
			host, hostSet = p.Value, true
		case p.Key == PortKey, p.Key == HTTPPortKey && port32 <= 0:
			n, ok := javaParseInt(p.Value)
			if !ok {
				return "", 0, fmt.Errorf("znode data: %s=%q is not a number", p.Key, p.Value)
			}
			port32 = n
		}
	}
	return usable(host, hostSet, port32)
}

func usable(host string, hostSet bool, port int32) (string, int, error) {
	if !hostSet {
		return "", 0, errors.New("znode data names no host")
	}
	if host == "" {
		return "", 0, errors.New("znode data names an empty host")
	}
	if port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("znode data names port %d", port)
	}
	return host, int(port), nil
}

// javaParseInt is Java's Integer.parseInt for ASCII: an optional sign,
// then decimal digits, within 32 bits. (Java also takes other Unicode
// digits; HiveServer2 never writes them.)
func javaParseInt(s string) (int32, bool) {
	digits := s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err == nil
}
