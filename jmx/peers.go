package jmx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// SendPacketDownstreamAvgInfo is the DataNodeInfoBean attribute that holds a
// DataNode's per-peer rolling averages.
const SendPacketDownstreamAvgInfo = "SendPacketDownstreamAvgInfo"

// The key of one peer in SendPacketDownstreamAvgInfo is
// "[" + peer + "]RollingAvgTime": MutableRollingAverages' name template
// "[%s]RollingAvg" + capitalize("Time"), filled with the peer name
// BlockReceiver.initPerfMonitoring records, the downstream's
// DatanodeID.getInfoAddr (ipAddr:infoPort) or getInfoSecureAddr.
const (
	peerKeyPrefix = "["
	peerKeySuffix = "]RollingAvgTime"
)

// The lasting reasons a DataNode's document has no peer latencies, which
// PeerLatencies wraps so that a caller can tell them with errors.Is from a
// malformed document.
var (
	// ErrNoDataNodeInfo: the document has no DataNodeInfoBean (not a
	// DataNode, or a qry that selects another bean).
	ErrNoDataNodeInfo = errors.New("no bean " + DataNodeInfoBean)
	// ErrNoPeerStats: the bean has no SendPacketDownstreamAvgInfo, as on a
	// DataNode older than peer statistics (HDFS-10917, Hadoop 2.x).
	ErrNoPeerStats = errors.New("bean " + DataNodeInfoBean + " has no " + SendPacketDownstreamAvgInfo +
		": a DataNode without peer statistics (older than HDFS-10917)")
	// ErrPeerStatsDisabled: SendPacketDownstreamAvgInfo is null, as on a
	// DataNode with dfs.datanode.peer.stats.enabled false.
	ErrPeerStatsDisabled = errors.New(SendPacketDownstreamAvgInfo +
		" is null: the DataNode keeps no peer metrics (dfs.datanode.peer.stats.enabled is false)")
)

// PeerLatencies reads the SendPacketDownstreamAvgInfo attribute of the bean
// Hadoop:service=DataNode,name=DataNodeInfo, as a DataNode's /jmx carries
// it (DataNode.getSendPacketDownstreamAvgInfo, filled by
// DataNodePeerMetrics.dumpSendPacketDownstreamAvgInfoAsJson): a JSON string
// holding an object such as {"[10.0.0.5:9864]RollingAvgTime":2.75, ...},
// the average milliseconds the DataNode took to send a packet to each
// downstream peer over its rolling windows.
//
// It returns peer id -> milliseconds. A peer id is "ip:port" (IPv6 as
// "[ip]:port", the address in its canonical form) or, as slowpeer agents
// write them, "host:port" in lower case; Hadoop's port there is
// the peer's HTTP info port (9864 by default), not its data transfer port.
// An empty object, which a DataNode that wrote no pipeline lately reports,
// gives an empty map. Everything else is an error, never a zero: no such
// bean (ErrNoDataNodeInfo), no such attribute (ErrNoPeerStats), null
// (ErrPeerStatsDisabled), a value that is not a string,
// a string that is not one JSON object, a key not of Hadoop's form, the
// same peer twice, a value that is not a finite non-negative number.
func PeerLatencies(beans []Bean) (map[string]float64, error) {
	b, ok := Find(beans, DataNodeInfoBean)
	if !ok {
		return nil, fmt.Errorf("read peer latencies: %w", ErrNoDataNodeInfo)
	}
	v, ok := b.Attr(SendPacketDownstreamAvgInfo)
	if !ok {
		return nil, fmt.Errorf("read peer latencies: %w", ErrNoPeerStats)
	}
	if v == nil {
		return nil, fmt.Errorf("read peer latencies: %w", ErrPeerStatsDisabled)
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("read peer latencies: %s is %s, not a string holding JSON", SendPacketDownstreamAvgInfo, kind(v))
	}
	latencies, err := parsePeerAverages(s)
	if err != nil {
		return nil, fmt.Errorf("read peer latencies: %s: %w", SendPacketDownstreamAvgInfo, err)
	}
	return latencies, nil
}

// parsePeerAverages reads the JSON object MetricsJsonBuilder writes for
// MutableRollingAverages.snapshot.
func parsePeerAverages(s string) (map[string]float64, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := expectDelim(d, '{', "not an object"); err != nil {
		return nil, err
	}
	out := make(map[string]float64)
	for d.More() {
		key, err := memberName(d)
		if err != nil {
			return nil, err
		}
		peer, err := parsePeerKey(key)
		if err != nil {
			return nil, err
		}
		if _, dup := out[peer]; dup {
			return nil, fmt.Errorf("peer %s given twice", peer)
		}
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%q is %s, not a number", key, kind(v))
		}
		ms, err := strconv.ParseFloat(n.String(), 64)
		if err != nil || math.IsInf(ms, 0) {
			return nil, fmt.Errorf("%q: %s is not a finite number", key, n)
		}
		if ms < 0 {
			return nil, fmt.Errorf("%q: %s ms is negative", key, n)
		}
		if ms == 0 {
			ms = 0 // not -0
		}
		out[peer] = ms
	}
	if err := expectDelim(d, '}', "the object does not end"); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("data after the object")
		}
		return nil, err
	}
	return out, nil
}

// parsePeerKey turns "[10.0.0.5:9864]RollingAvgTime" into "10.0.0.5:9864".
// The address is everything before the last colon, so an IPv6 address,
// which Hadoop writes without brackets, reads as well. Hadoop names peers
// by IP address; a DNS host name is accepted too (slowpeer agents name
// peers by their ids), in lower case, because MutableRollingAverages
// capitalizes the first letter of the name ("[Dn5.example.com:9864]...").
func parsePeerKey(key string) (string, error) {
	inner, ok1 := strings.CutPrefix(key, peerKeyPrefix)
	inner, ok2 := strings.CutSuffix(inner, peerKeySuffix)
	colon := strings.LastIndexByte(inner, ':')
	if !ok1 || !ok2 || colon < 0 {
		return "", fmt.Errorf("key %q is not %q", key, "[ip:port]RollingAvgTime")
	}
	host, port := inner[:colon], inner[colon+1:]
	if addr, err := netip.ParseAddr(host); err == nil {
		host = addr.String()
	} else if hostName(host) {
		host = strings.ToLower(host)
	} else {
		return "", fmt.Errorf("key %q: %q is not an IP address or host name", key, host)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != port {
		return "", fmt.Errorf("key %q: %q is not a port", key, port)
	}
	return net.JoinHostPort(host, port), nil
}

// hostName reports whether s is a DNS host name (RFC 1123): dot-separated
// labels of 1 to 63 letters, digits and hyphens, not starting or ending
// with a hyphen, 253 bytes at most, not all digits and dots.
func hostName(s string) bool {
	if s == "" || len(s) > 253 || strings.Trim(s, "0123456789.") == "" {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// PeerAveragesJSON returns the SendPacketDownstreamAvgInfo string of a
// DataNode whose average latencies to its downstream peers, in
// milliseconds by peer id, are avgMs, as
// DataNodePeerMetrics.dumpSendPacketDownstreamAvgInfoAsJson writes it:
// {"[10.0.0.5:9864]RollingAvgTime":2.75,...}, one member a peer, each
// double as Jackson writes it (FormatDouble; a non-finite one quoted),
// without whitespace. Hadoop writes the peers in its map's order; here
// they are sorted. An empty or nil map gives "{}", as Hadoop's does.
// Peer ids are written as they are, except that an IPv6 address loses its
// brackets, as in Hadoop's names; Hadoop would also capitalize a host
// name's first letter, which changes nothing for its IP addresses.
func PeerAveragesJSON(avgMs map[string]float64) string {
	peers := slices.Sorted(maps.Keys(avgMs))
	var e jacksonEncoder
	e.buf = append(e.buf, '{')
	for i, peer := range peers {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		name := peer
		if host, port, err := net.SplitHostPort(peer); err == nil && strings.Contains(host, ":") {
			name = host + ":" + port // Hadoop's ipAddr + ":" + port: IPv6 without brackets
		}
		e.buf = appendJacksonString(e.buf, peerKeyPrefix+name+peerKeySuffix)
		e.buf = append(e.buf, ':')
		e.float(reflect.ValueOf(avgMs[peer]))
	}
	e.buf = append(e.buf, '}')
	return string(e.buf)
}
