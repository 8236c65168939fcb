package namenode

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// adminInService is AdminStates.NORMAL as Hadoop writes it, and
// adminDecommissioned AdminStates.DECOMMISSIONED: a DataNode named by
// dfs.hosts.exclude, which Hadoop decommissions, and the service takes out
// of its decisions at once (it has no blocks to move first).
const (
	adminInService      = "In Service"
	adminDecommissioned = "Decommissioned"
)

// adminState is the adminState of node.
func adminState(node string, excluded func(string) bool) string {
	if excluded(node) {
		return adminDecommissioned
	}
	return adminInService
}

// unknownVersion is what Hadoop's Router writes for a DataNode whose
// software version it does not know (NamenodeBeanMetrics.getNodesImpl);
// heartbeats do not carry the agent's version.
const unknownVersion = "UNKNOWN"

// liveNodesJSON is NameNodeInfo's LiveNodes as FSNamesystem.getLiveNodes
// writes it: a JSON object keyed by the node's "host:xferPort" (its id),
// with, per node, the fields the service knows:
//
//   - infoAddr: the agent's HTTP port as its heartbeats announce it
//     (reports.Heartbeat.HTTPAddress), so that tools that find DataNodes
//     through the NameNode (hadoop_jmx_exporter) scrape the agents' /jmx;
//     with it infoSecureAddr, the same host with port 0, which is how
//     Hadoop writes a DataNode without an HTTPS port. An agent that
//     serves no HTTP port gets port 0 in both, on the host of its id:
//     Hadoop's own "no such port", and tools that read every entry's
//     infoAddr (hadoop_jmx_exporter does) find one.
//   - xferaddr: the node id;
//   - lastContact: whole seconds since its newest heartbeat
//     ((now − lastUpdate) / 1000 in Hadoop);
//   - adminState: "In Service", or "Decommissioned" for a node excluded
//     (see adminInService);
//   - version: "UNKNOWN" (see unknownVersion).
//
// Capacities, blocks and volume failures are not the service's to know
// and are left out. nodes must be rows of DataNodes.List at now (sorted
// by id). It writes, without reflection, what jmx.MarshalJackson writes
// of the map of maps (keys sorted, compact): at 10 000 nodes that took
// 50 ms and 20 MB per /jmx.
func liveNodesJSON(now time.Time, nodes []DataNode, excluded func(string) bool) string {
	// Each node is appended to b and copied into sb, whose String does
	// not copy the megabytes again (as string(b) would).
	var sb strings.Builder
	sb.Grow(64 + len(nodes)*190)
	sb.WriteByte('{')
	var b []byte
	for _, n := range nodes {
		if n.State != Live {
			continue
		}
		b = nodeKey(b[:0], sb.Len() == 1, n.Node)
		b = append(b, `{"adminState":`...)
		b = jmx.AppendString(b, adminState(n.Node, excluded))
		info := n.HTTPAddress
		host, _, err := net.SplitHostPort(info)
		if err != nil { // no HTTP port
			host, _, _ = net.SplitHostPort(n.Node) // a valid id (reports.ValidNodeID)
			info = net.JoinHostPort(host, "0")
		}
		b = append(b, `,"infoAddr":`...)
		b = jmx.AppendString(b, info)
		b = append(b, `,"infoSecureAddr":`...)
		b = jmx.AppendString(b, net.JoinHostPort(host, "0"))
		b = append(b, `,"lastContact":`...)
		b = strconv.AppendInt(b, lastContactSeconds(now, n.LastHeartbeat), 10)
		b = append(b, `,"version":`...)
		b = jmx.AppendString(b, unknownVersion)
		b = append(b, `,"xferaddr":`...)
		b = jmx.AppendString(b, n.Node)
		b = append(b, '}')
		sb.Write(b)
	}
	sb.WriteByte('}')
	return sb.String()
}

// deadNodesJSON is NameNodeInfo's DeadNodes as FSNamesystem.getDeadNodes
// writes it: keyed by node id, with lastContact, decommissioned (true for
// a node excluded), adminState and xferaddr. As
// liveNodesJSON, it writes what jmx.MarshalJackson writes of the map.
func deadNodesJSON(now time.Time, nodes []DataNode, excluded func(string) bool) string {
	b := []byte{'{'}
	for _, n := range nodes {
		if n.State != Dead {
			continue
		}
		b = nodeKey(b, len(b) == 1, n.Node)
		b = append(b, `{"adminState":`...)
		b = jmx.AppendString(b, adminState(n.Node, excluded))
		b = append(b, `,"decommissioned":`...)
		b = strconv.AppendBool(b, excluded(n.Node))
		b = append(b, `,"lastContact":`...)
		b = strconv.AppendInt(b, lastContactSeconds(now, n.LastHeartbeat), 10)
		b = append(b, `,"xferaddr":`...)
		b = jmx.AppendString(b, n.Node)
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// nodeKey appends the key of a node's entry, after a comma unless it is
// the first.
func nodeKey(b []byte, first bool, node string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = jmx.AppendString(b, node)
	return append(b, ':')
}

// lastContactSeconds is FSNamesystem.getLastContact: whole seconds since
// last, truncated toward zero as Java's long division.
func lastContactSeconds(now, last time.Time) int64 {
	return int64(now.Sub(last) / time.Second)
}
