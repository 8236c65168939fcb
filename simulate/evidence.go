package simulate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/tracker"
)

// evidence joins the tracker's reports and the diagnosis into the counts
// that feed slowpeer's slow sets, the rule this simulation proposes for
// the service:
//
//   - a node the diagnosis finds slow (Inbound, Outbound, Both) counts
//     with the pairs the finding rests on, and so does every node of a
//     slow rack;
//   - a Link is a link entity, "link:a|b", with its directions found slow;
//   - the tracker's reports (Hadoop's raw meaning) do not feed it. Fed
//     straight to the slow set, a pause of a few seconds on a healthy host
//     is two or more reporters at once (every block in flight to it
//     waits), and the hysteresis would need to outlast the rolling windows
//     and a report interval, beyond the time-to-detect target; the
//     diagnosis wants half of a node's pairs slow, which no pause makes.
func evidence(findings []diagnosis.Finding, c *cluster) (nodes, links []tracker.NodeCount) {
	count := map[string]int{}
	for _, f := range findings {
		switch f.Kind {
		case diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both:
			count[f.Node] = max(count[f.Node], f.Reporters)
		case diagnosis.Rack:
			for _, i := range c.rackNodes(f.Rack) {
				count[c.names[i]] = max(count[c.names[i]], f.Reporters)
			}
		case diagnosis.Link:
			links = append(links, tracker.NodeCount{Node: linkEntity(f.Node, f.Peer), Reporters: f.Reporters})
		}
	}
	for n, k := range count {
		nodes = append(nodes, tracker.NodeCount{Node: n, Reporters: k})
	}
	slices.SortFunc(nodes, func(a, b tracker.NodeCount) int { return strings.Compare(a.Node, b.Node) })
	return nodes, links
}

// rackNodes returns the nodes of a rack named "/rackK".
func (c *cluster) rackNodes(rack string) []int32 {
	k, err := strconv.Atoi(strings.TrimPrefix(rack, "/rack"))
	if err != nil || k < 0 || k >= len(c.racks) {
		return nil
	}
	return c.racks[k]
}
