package namenode

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

// Names of the beans the Server writes beside jmx.NameNodeStatusBean and
// jmx.FSNamesystemStateBean.
const (
	// NameNodeInfoBean is NameNodeMXBean's bean; it carries SoftwareVersion,
	// LiveNodes and DeadNodes.
	NameNodeInfoBean = "Hadoop:service=NameNode,name=NameNodeInfo"
	// JvmMetricsBean is the metrics2 JvmMetrics record of a NameNode
	// (jmx.JvmMetrics).
	JvmMetricsBean = "Hadoop:service=NameNode,name=JvmMetrics"
)

// fsNamesystemClass is the modelerType of the beans FSNamesystem registers
// (FSNamesystemState, NameNodeInfo): the class behind their StandardMBean.
const fsNamesystemClass = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem"

// Beans returns the Server's JMX beans at now. Each carries only what the
// service truly knows; an attribute of Hadoop's that it cannot know
// (capacities, blocks, files, Kerberos) is left out, never
// written as 0. Every bean carries tag.Hostname, as Hadoop's metrics2 beans
// do, so that scrapers label what they read with the host.
//
//   - NameNodeStatus (NameNodeStatusMXBean): NNRole, HostAndPort,
//     SlowPeersReport (the top MaxNodesToReport slow nodes as Hadoop's
//     Jackson writes them, "[]" when there are none), SlowDisksReport
//     (the top MaxDisksToReport slow disks so written, null when there
//     are none or disks are off) and State, from Config.State,
//     when the service knows its leadership.
//   - FSNamesystemState (FSNamesystemMBean): FSState, NumLiveDataNodes,
//     NumDeadDataNodes and NumStaleDataNodes (by Config.StaleAfter), and
//     NumDecomLiveDataNodes and NumDecomDeadDataNodes: the DataNodes
//     dfs.hosts.exclude names, which Hadoop decommissions (here at once:
//     there are no blocks to move), counted in the live and dead ones too,
//     as Hadoop counts them; the decommissioning and maintenance counts,
//     0: no DataNode is on its way out of service or in maintenance.
//   - NameNodeInfo (NameNodeMXBean): SoftwareVersion, LiveNodes and
//     DeadNodes (see liveNodesJSON), DecomNodes and
//     EnteringMaintenanceNodes ("{}", as the counts say).
//   - JvmMetrics: the Go runtime under Hadoop's JvmMetrics names (see
//     jmx.JvmMetrics).
func (s *Server) Beans(now time.Time) []jmx.Bean {
	report := slowNodesJSON(s.tracker.Top(now, s.cfg.MaxNodesToReport))
	live, dead := s.nodes.Counts(now)
	stale := s.nodes.Stale(now, s.cfg.StaleAfter())
	nodes := s.nodes.List(now)
	decomLive, decomDead := 0, 0 // excluded: decommissioned, to Hadoop
	if s.excluded.Load().Len() > 0 {
		for _, n := range nodes {
			switch {
			case !s.Excluded(n.Node):
			case n.State == Dead:
				decomDead++
			default:
				decomLive++
			}
		}
	}

	status := []jmx.Attr{
		{Name: "NNRole", Value: "NameNode"},
		{Name: "HostAndPort", Value: s.hostAndPort()},
		{Name: jmx.SlowPeersReport, Value: string(report)},
		{Name: jmx.SlowDisksReport, Value: s.slowDisksReport(now)},
	}
	if st := s.State(); st != "" {
		status = append(status, jmx.Attr{Name: "State", Value: st})
	}
	info := []jmx.Attr{}
	if s.cfg.SoftwareVersion != "" {
		info = append(info, jmx.Attr{Name: "SoftwareVersion", Value: s.cfg.SoftwareVersion})
	}
	info = append(info,
		jmx.Attr{Name: "LiveNodes", Value: liveNodesJSON(now, nodes, s.Excluded)},
		jmx.Attr{Name: "DeadNodes", Value: deadNodesJSON(now, nodes, s.Excluded)},
		// FSNamesystem.getDecomNodes and getEnteringMaintenanceNodes list
		// the nodes on their way out (an excluded node is out at once):
		// none.
		jmx.Attr{Name: "DecomNodes", Value: "{}"},
		jmx.Attr{Name: "EnteringMaintenanceNodes", Value: "{}"})

	beans := []jmx.Bean{
		{
			Name:        jmx.NameNodeStatusBean,
			ModelerType: "org.apache.hadoop.hdfs.server.namenode.NameNode",
			Attrs:       status,
		},
		{
			Name:        jmx.FSNamesystemStateBean,
			ModelerType: fsNamesystemClass,
			Attrs: []jmx.Attr{
				{Name: "FSState", Value: "Operational"},
				{Name: "NumLiveDataNodes", Value: live},
				{Name: "NumDeadDataNodes", Value: dead},
				{Name: "NumStaleDataNodes", Value: stale},
				{Name: "NumDecomLiveDataNodes", Value: decomLive},
				{Name: "NumDecomDeadDataNodes", Value: decomDead},
				// The counts of DecomNodes and EnteringMaintenanceNodes.
				{Name: "NumDecommissioningDataNodes", Value: 0},
				{Name: "NumInMaintenanceLiveDataNodes", Value: 0},
				{Name: "NumInMaintenanceDeadDataNodes", Value: 0},
				{Name: "NumEnteringMaintenanceDataNodes", Value: 0},
			},
		},
		{Name: NameNodeInfoBean, ModelerType: fsNamesystemClass, Attrs: info},
		jmx.JvmMetrics("NameNode", s.hostname, s.readRuntime()),
	}
	if s.hostname != "" {
		for i := range beans[:3] { // JvmMetrics places its tags itself
			beans[i].Attrs = append([]jmx.Attr{{Name: "tag.Hostname", Value: s.hostname}}, beans[i].Attrs...)
		}
	}
	return beans
}

// State returns the replica's HA state: Config.State's answer, or
// "active" when it is nil: a lone service does the leader's work, as a
// Hadoop NameNode without HA says "active".
func (s *Server) State() string {
	if s.cfg.State == nil {
		return "active"
	}
	return s.cfg.State()
}

// slowNodesJSON is the SlowPeersReport string for nodes, as Hadoop's
// SlowPeerTracker.getJson writes it with Jackson: doubles as Java writes
// them (25.0, 1.0E-4), no HTML escaping, an empty list "[]" and never
// "null", a slow node without reporters with "[]".
func slowNodesJSON(nodes []reports.SlowNode) []byte {
	out := make([]reports.SlowNode, len(nodes))
	for i, n := range nodes {
		out[i] = n
		if out[i].Reporters == nil {
			out[i].Reporters = []reports.Reporter{}
		}
	}
	b, err := jmx.MarshalJackson(out)
	if err != nil {
		panic("BUG: namenode: encode slow-peer report: " + err.Error())
	}
	return b
}

// jmx handles GET /jmx with Hadoop JMXJsonServlet's ?qry= and ?get=.
func (s *Server) jmx(c *gin.Context) {
	jmx.Write(c.Writer, c.Request, s.Beans(s.now()))
}
