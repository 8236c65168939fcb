package simulate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// evidence joins the tracker's reports and the diagnosis into the counts
// that feed slowpeer's slow sets, the rule this simulation proposes for
// the service:
//
//   - a report counts against its peer unless the diagnosis finds its
//     reporter slow to send (Outbound, Both) or in a slow rack: such a
//     reporter sees everyone slow, which says nothing of them;
//   - a node the diagnosis finds slow (Inbound, Outbound, Both) counts
//     with the pairs the finding rests on, and so does every node of a
//     slow rack;
//   - a Link is a link entity, "link:a|b", with its directions found slow.
func evidence(top []reports.SlowNode, findings []diagnosis.Finding, c *cluster) (nodes, links []tracker.NodeCount) {
	discount := map[string]bool{}
	count := map[string]int{}
	for _, f := range findings {
		switch f.Kind {
		case diagnosis.Outbound, diagnosis.Both:
			discount[f.Node] = true
		case diagnosis.Rack:
			for _, i := range c.rackNodes(f.Rack) {
				discount[c.names[i]] = true
			}
		}
	}
	for _, n := range top {
		k := 0
		for _, r := range n.Reporters {
			if !discount[r.Node] {
				k++
			}
		}
		if k > 0 {
			count[n.Node] = k
		}
	}
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
