package diagnosis

import (
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/reports"
)

// LinkEntity names the link between nodes a and b as a slow set holds it,
// "link:a|b", the two ends sorted so that both directions name the same
// link.
func LinkEntity(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "link:" + a + "|" + b
}

// Evidence turns a diagnosis into the counts that feed the slow sets (a
// tracker.SlowSet of nodes and one of links), the rule both the service
// (package namenode) and the simulator (package simulate) follow:
//
//   - a node found Inbound, Outbound or Both counts with the measured
//     pairs its finding rests on (Finding.Reporters), and so does every
//     node of a Rack finding (rackNodes names them; nil knows no racks);
//     a node named by several findings counts with the largest;
//   - a Link finding is a link entity (LinkEntity) counting the
//     directions found slow; it goes to links, never to nodes: a bad link
//     says nothing against either end when they are normal with everyone
//     else;
//   - unmeasured are the nodes named by slow-peer reports (Hadoop's raw
//     rule) of reporters that send no peerLatencies, and so have no row in
//     the matrix the fit could weigh (an agent reading a Hadoop DataNode
//     through -hadoop-jmx), each with the number of such reporters; they
//     add to the node's count. The reports of reporters that do send
//     peerLatencies do not count: the fit has their measurements already,
//     and a pause of a few seconds on a healthy host makes two or more of
//     them report it at once, where the fit wants half of the node's pairs
//     slow.
//
// nodes are sorted by name, links in the order of findings. Pure: the
// caller passes what it has and feeds the result to its slow sets.
func Evidence(findings []Finding, rackNodes func(rack string) []string, unmeasured []reports.NodeCount) (nodes, links []reports.NodeCount) {
	count := map[string]int{}
	for _, f := range findings {
		switch f.Kind {
		case Inbound, Outbound, Both:
			count[f.Node] = max(count[f.Node], f.Reporters)
		case Rack:
			if rackNodes == nil {
				continue
			}
			for _, n := range rackNodes(f.Rack) {
				count[n] = max(count[n], f.Reporters)
			}
		case Link:
			links = append(links, reports.NodeCount{Node: LinkEntity(f.Node, f.Peer), Reporters: f.Reporters})
		}
	}
	for _, u := range unmeasured {
		if u.Reporters > 0 {
			count[u.Node] += u.Reporters
		}
	}
	for n, k := range count {
		nodes = append(nodes, reports.NodeCount{Node: n, Reporters: k})
	}
	slices.SortFunc(nodes, func(a, b reports.NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return nodes, links
}
