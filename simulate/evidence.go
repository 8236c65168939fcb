package simulate

import (
	"strconv"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/tracker"
)

// evidence joins the diagnosis into the counts that feed slowpeer's slow
// sets, by the service's rule (diagnosis.Evidence): a node the diagnosis
// finds slow (Inbound, Outbound, Both) counts with the pairs the finding
// rests on, and so does every node of a slow rack; a Link is a link
// entity, "link:a|b", with its directions found slow. The tracker's
// reports (Hadoop's raw meaning) do not feed it: every simulated reporter
// sends peerLatencies, and fed straight to the slow set, a pause of a few
// seconds on a healthy host is two or more reporters at once (every block
// in flight to it waits), and the hysteresis would need to outlast the
// rolling windows and a report interval, beyond the time-to-detect
// target; the diagnosis wants half of a node's pairs slow, which no pause
// makes.
func evidence(findings []diagnosis.Finding, c *cluster) (nodes, links []tracker.NodeCount) {
	return diagnosis.Evidence(findings, c.rackNodeNames, nil)
}

// rackNodeNames returns the names of the nodes of a rack named "/rackK".
func (c *cluster) rackNodeNames(rack string) []string {
	ids := c.rackNodes(rack)
	names := make([]string, len(ids))
	for k, i := range ids {
		names[k] = c.names[i]
	}
	return names
}

// rackNodes returns the nodes of a rack named "/rackK".
func (c *cluster) rackNodes(rack string) []int32 {
	k, err := strconv.Atoi(strings.TrimPrefix(rack, "/rack"))
	if err != nil || k < 0 || k >= len(c.racks) {
		return nil
	}
	return c.racks[k]
}
