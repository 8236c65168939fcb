package namenode

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/jmx"
	"github.com/slowpeer/slowpeer/reports"
)

// Beans returns the Server's JMX beans at now, with the attributes tooling
// reads from a Hadoop NameNode: NameNodeStatus (NameNodeStatusMXBean, with
// SlowPeersReport as a JSON string of the top MaxNodesToReport slow nodes,
// "[]" when there are none) and FSNamesystemState (FSNamesystemMBean, with
// the live and dead DataNode counts).
func (s *Server) Beans(now time.Time) []jmx.Bean {
	report := slowNodesJSON(s.tracker.Top(now, s.cfg.MaxNodesToReport))
	live, dead := s.nodes.Counts(now)
	return []jmx.Bean{
		{
			Name:        jmx.NameNodeStatusBean,
			ModelerType: "org.apache.hadoop.hdfs.server.namenode.NameNode",
			Attrs: []jmx.Attr{
				{Name: "NNRole", Value: "NameNode"},
				{Name: "HostAndPort", Value: s.hostAndPort()},
				// A stand-in until the Hadoop-interop issue replaces it:
				// true means a bearer token is set, never Kerberos.
				{Name: "SecurityEnabled", Value: s.cfg.AuthToken != ""},
				// Fixed until the Hadoop-interop issue replaces it: the
				// service has no HA state, so no transition.
				{Name: "LastHATransitionTime", Value: 0},
				{Name: "BytesWithFutureGenerationStamps", Value: 0},
				{Name: "SlowPeersReport", Value: string(report)},
				{Name: "SlowDisksReport", Value: nil},
				// The leader of the registered replicas is active, the
				// others standby (Config.State).
				{Name: "State", Value: s.State()},
			},
		},
		{
			Name:        jmx.FSNamesystemStateBean,
			ModelerType: "org.apache.hadoop.hdfs.server.namenode.FSNamesystem",
			Attrs: []jmx.Attr{
				{Name: "FSState", Value: "Operational"},
				{Name: "NumLiveDataNodes", Value: live},
				{Name: "NumDeadDataNodes", Value: dead},
				// The counts below are fixed until the Hadoop-interop
				// issue replaces them: the DataNode table knows neither
				// decommissioning nor stale nodes.
				{Name: "NumDecomLiveDataNodes", Value: 0},
				{Name: "NumDecomDeadDataNodes", Value: 0},
				{Name: "NumDecommissioningDataNodes", Value: 0},
				{Name: "NumStaleDataNodes", Value: 0},
			},
		},
	}
}

// State returns the replica's HA state: Config.State's answer, or
// "active" when it is nil.
func (s *Server) State() string {
	if s.cfg.State == nil {
		return "active"
	}
	return s.cfg.State()
}

// slowNodesJSON is the /slowpeers document for nodes; an empty list is
// "[]", never "null".
func slowNodesJSON(nodes []reports.SlowNode) []byte {
	if nodes == nil {
		nodes = []reports.SlowNode{}
	}
	b, err := json.Marshal(nodes)
	if err != nil {
		panic("BUG: namenode: encode slow-peer report: " + err.Error())
	}
	return b
}

// jmx handles GET /jmx with Hadoop JMXJsonServlet's ?qry= and ?get=.
func (s *Server) jmx(c *gin.Context) {
	jmx.Write(c.Writer, c.Request, s.Beans(s.now()))
}
