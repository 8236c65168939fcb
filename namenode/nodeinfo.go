package namenode

import (
	"net"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// adminInService is AdminStates.NORMAL as Hadoop writes it. The service
// never takes a DataNode out of service (it has no decommissioning), so
// every node it lists is in service.
const adminInService = "In Service"

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
//     Hadoop writes a DataNode without an HTTPS port. Both are left out
//     for an agent that serves no HTTP port.
//   - xferaddr: the node id;
//   - lastContact: whole seconds since its newest heartbeat
//     ((now − lastUpdate) / 1000 in Hadoop);
//   - adminState: "In Service" (see adminInService);
//   - version: "UNKNOWN" (see unknownVersion).
//
// Capacities, blocks and volume failures are not the service's to know
// and are left out. nodes must be rows of DataNodes.List at now.
func liveNodesJSON(now time.Time, nodes []DataNode) string {
	info := map[string]map[string]any{}
	for _, n := range nodes {
		if n.State != Live {
			continue
		}
		m := map[string]any{
			"xferaddr":    n.Node,
			"lastContact": lastContactSeconds(now, n.LastHeartbeat),
			"adminState":  adminInService,
			"version":     unknownVersion,
		}
		if host, _, err := net.SplitHostPort(n.HTTPAddress); err == nil {
			m["infoAddr"] = n.HTTPAddress
			m["infoSecureAddr"] = net.JoinHostPort(host, "0")
		}
		info[n.Node] = m
	}
	return nodesJSON(info)
}

// deadNodesJSON is NameNodeInfo's DeadNodes as FSNamesystem.getDeadNodes
// writes it: keyed by node id, with lastContact, decommissioned (false:
// the service decommissions nothing), adminState and xferaddr.
func deadNodesJSON(now time.Time, nodes []DataNode) string {
	info := map[string]map[string]any{}
	for _, n := range nodes {
		if n.State != Dead {
			continue
		}
		info[n.Node] = map[string]any{
			"lastContact":    lastContactSeconds(now, n.LastHeartbeat),
			"decommissioned": false,
			"adminState":     adminInService,
			"xferaddr":       n.Node,
		}
	}
	return nodesJSON(info)
}

// lastContactSeconds is FSNamesystem.getLastContact: whole seconds since
// last, truncated toward zero as Java's long division.
func lastContactSeconds(now, last time.Time) int64 {
	return int64(now.Sub(last) / time.Second)
}

// nodesJSON writes a LiveNodes or DeadNodes map, keys sorted. Hadoop writes
// it with Jetty's JSON.toString in HashMap order; a sorted order is one of
// those, and a stable one.
func nodesJSON(info map[string]map[string]any) string {
	b, err := jmx.MarshalJackson(info)
	if err != nil {
		panic("BUG: namenode: encode node info: " + err.Error())
	}
	return string(b)
}
