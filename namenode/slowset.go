package namenode

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/tracker"
)

// The slow set: what the HiveServer picker avoids, what the heartbeat's
// {"slow": true} answers and what the alerts watch. It is fed by the
// diagnosis, as the simulation of DETECTION.md ("slowpeer's defaults, and
// why") feeds it, by the rule of diagnosis.Evidence: a node enters on a
// finding (Inbound, Outbound, Both, every node of a Rack) resting on at
// least slowpeer.slow.enter.reporters pairs for slowpeer.slow.enter.after,
// or on the slow-peer reports of reporters that send no peerLatencies (an
// agent reading a Hadoop DataNode through -hadoop-jmx), each such reporter
// counting one; it leaves after slowpeer.slow.leave.after without. Link
// findings go to a slow set of links of their own, "link:a|b": a bad link
// is not a slow node, so nothing avoids its ends; the metrics count them.
// A link enters once one direction is found slow in two reports in a row
// of the node that measures it (diagnosis.LinkConfirmer, the simulator's
// rule; at once without hysteresis, Config.SlowSet.EnterAfter 0), and
// leaves as a node does (tracker.LinkSlowSetConfig).
// The tracker, behind /slowpeers, keeps Hadoop's raw meaning.

// The slow set's families.
const (
	slowSetFamily       = "slowpeer_slow_set_nodes"
	slowSetLinksFamily  = "slowpeer_slow_set_links"
	slowSetMemberFamily = "slowpeer_slow_set_member"
)

// feedSlowSets updates the slow sets at now from the findings and the
// unmeasured reporters' counts, and returns the evidence of nodes. The
// caller holds the diagnoser's stepMu, after apply.
// Excluded nodes (dfs.hosts.exclude), nodes the DataNode table holds
// dead, and links with such an end feed nothing: Step takes a node that
// dies out of the sets, and the reports that still name it must not bring
// it back. Each entry and exit is logged and counted (decisions.go).
func (s *Server) feedSlowSets(now time.Time, findings []diagnosis.Finding, unmeasured []tracker.NodeCount) []tracker.NodeCount {
	racks := s.rackNodes(now)
	nodes, links := diagnosis.Evidence(findings, racks, unmeasured)
	nodes = s.countable(now, nodes)
	why := reasonsOf(findings, racks, unmeasured)
	ch := s.slowSet.Update(now, nodes)
	s.decisions.observe(now, setNodes, why, ch, s.slowSet.Nodes(), s.cfg.SlowSet.LeaveAfter)
	ch = s.slowLinks.Update(now, s.countable(now, s.diag.confirmLinks(now, findings, links)))
	s.decisions.observe(now, setLinks, why, ch, s.slowLinks.Nodes(), s.cfg.SlowSet.LeaveAfter)
	return nodes
}

// rackNodes returns the function that lists the DataNodes of a rack by
// the configured topology, nil without one.
func (s *Server) rackNodes(now time.Time) func(rack string) []string {
	if s.cfg.Topology.Len() == 0 {
		return nil
	}
	var byRack map[string][]string // built at the first Rack finding
	return func(rack string) []string {
		if byRack == nil {
			byRack = map[string][]string{}
			for _, d := range s.nodes.List(now) {
				if r := s.cfg.Topology.Rack(d.Node); r != "" {
					byRack[r] = append(byRack[r], d.Node)
				}
			}
		}
		return byRack[rack]
	}
}

// slowSetOrder returns the members of the slow set, those the last
// diagnosis still names first, most evidence first (then by name), then
// those in their quiet period by name.
func (s *Server) slowSetOrder() []string {
	ev := slices.Clone(s.diag.current().nodes)
	slices.SortStableFunc(ev, func(a, b tracker.NodeCount) int { return cmp.Compare(b.Reporters, a.Reporters) })
	var out []string
	seen := map[string]bool{}
	for _, c := range ev {
		if s.slowSet.Contains(c.Node) {
			out = append(out, c.Node)
			seen[c.Node] = true
		}
	}
	for _, n := range s.slowSet.Nodes() {
		if !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// SlowNodes returns the ids of the top MaxSlowPeerCollectNodes nodes of
// the slow set that are not dead at now (most evidence first, then by
// name): the set to keep new work away from, as Hadoop's
// DatanodeManager.getSlowPeersUuidSet collects it for block placement,
// but fed by the diagnosis, with the hysteresis of Config.SlowSet, as of
// the last Diagnose. A dead DataNode gets no work anyway; leaving it out
// keeps its place for a live slow node.
func (s *Server) SlowNodes(now time.Time) []string {
	var ids []string
	for _, n := range s.slowSetOrder() {
		if len(ids) == s.cfg.MaxSlowPeerCollectNodes {
			break
		}
		if st, _ := s.nodes.State(now, n); st != Dead {
			ids = append(ids, n)
		}
	}
	return ids
}

// SlowHosts returns the distinct hosts (the node ids without port) of
// SlowNodes(now), in the same order, then those of the nodes whose disks
// are slow enough (slowpeer.slow.disk.host.share, disks.go). It fits the
// slowHosts argument of the HiveServer picker's handlers.
func (s *Server) SlowHosts(now time.Time) []string {
	var hosts []string
	for _, id := range s.SlowNodes(now) {
		if h := reports.Host(id); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return s.addSlowDiskHosts(hosts)
}

// IsSlowHost reports whether one of SlowNodes(now) runs on host.
func (s *Server) IsSlowHost(now time.Time, host string) bool {
	return slices.Contains(s.SlowHosts(now), host)
}

// writeSlowSetMetrics writes the slow set's families: its size, its
// links, and a series for each of its top MetricsSlowNodes members
// (sorted by name), so that made-up names cannot grow the series.
func (s *Server) writeSlowSetMetrics(w io.Writer) {
	members := s.slowSetOrder()
	members = members[:min(len(members), s.cfg.MetricsSlowNodes)]
	slices.SortFunc(members, strings.Compare)
	writeFamily(w, slowSetFamily, "gauge",
		"Nodes in the slow set (fed by the diagnosis): found long enough by enough pairs, and not yet quiet long enough.", s.slowSet.Len())
	writeFamilyHeader(w, slowSetMemberFamily, "gauge",
		"1 for a node in the slow set, for the top slow set members only "+
			"(slowpeer.namenode.metrics.slow.nodes); a series exists only while the node is among them.")
	for _, n := range members {
		fmt.Fprintf(w, "%s{node=%s} 1\n", slowSetMemberFamily, reports.QuoteLabel(n))
	}
	writeFamily(w, slowSetLinksFamily, "gauge",
		"Links in the slow set of links: pairs the diagnosis found slow long enough; nothing avoids them.", s.slowLinks.Len())
}
