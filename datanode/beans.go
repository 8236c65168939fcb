package datanode

import (
	"net"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// dataNodeModelerType is the modelerType Hadoop gives the DataNodeInfo
// bean: the class that implements DataNodeMXBean.
const dataNodeModelerType = "org.apache.hadoop.hdfs.server.datanode.DataNode"

// beans returns what /jmx serves at now: DataNodeInfo and JvmMetrics.
//
// DataNodeInfo carries what DataNodeMXBean's getters would say of the
// agent, in Hadoop's order, and only what is true:
//
//   - Version and SoftwareVersion: Config.SoftwareVersion (slowpeer's
//     version; both left out when it is empty);
//   - HttpPort (while Run serves the port) and DataPort, as strings, as
//     Hadoop writes them; DatanodeHostname, from the id;
//   - XceiverCount: the probe connections the data port serves now (each
//     served as a DataXceiver serves a transfer), 0 without a data port;
//   - SendPacketDownstreamAvgInfo (see Handler), null while peer
//     statistics are off.
//
// Capacities, volumes, block pools and the RPC port are a DataNode's and
// are left out. JvmMetrics is the Go runtime under Hadoop's names
// (jmx.JvmMetrics), with tag.ProcessName DataNode, which Netdata's hdfs
// collector requires, and tag.Hostname, which scrapers label series with.
func (a *Agent) beans(now time.Time) []jmx.Bean {
	info := jmx.Bean{Name: jmx.DataNodeInfoBean, ModelerType: dataNodeModelerType}
	if v := a.cfg.SoftwareVersion; v != "" {
		info.Attrs = append(info.Attrs, jmx.Attr{Name: "Version", Value: v}, jmx.Attr{Name: "SoftwareVersion", Value: v})
	}
	if p := a.httpPort.Load(); p != nil {
		info.Attrs = append(info.Attrs, jmx.Attr{Name: "HttpPort", Value: *p})
	}
	if host, port, err := net.SplitHostPort(a.cfg.ID); err == nil {
		// Hadoop writes the ports of DataNodeInfo as strings.
		info.Attrs = append(info.Attrs, jmx.Attr{Name: "DataPort", Value: port},
			jmx.Attr{Name: "DatanodeHostname", Value: host})
	}
	xceivers := 0
	if srv := a.data.Load(); srv != nil {
		xceivers = len(srv.slots)
	}
	info.Attrs = append(info.Attrs, jmx.Attr{Name: "XceiverCount", Value: xceivers})
	var avg any // null: peer statistics off, as on a Hadoop DataNode
	if lat := a.latencies(now); lat != nil {
		avg = jmx.PeerAveragesJSON(lat)
	}
	info.Attrs = append(info.Attrs, jmx.Attr{Name: jmx.SendPacketDownstreamAvgInfo, Value: avg})
	return []jmx.Bean{info, jmx.JvmMetrics("DataNode", a.hostname, a.readRuntime())}
}
