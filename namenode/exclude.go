package namenode

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/hosts"
	"github.com/slowpeer/slowpeer/tracker"
)

// HostsExcludeKey is Hadoop's dfs.hosts.exclude: a file of the DataNodes
// to take out of service (package hosts has its format). It is read at
// start and again by RefreshNodes (SIGHUP, POST /v1/datanodes/refresh,
// "slowpeer admin -refresh-nodes"), as a NameNode reads it at start and on
// "hdfs dfsadmin -refreshNodes". Unset, no DataNode is excluded.
const HostsExcludeKey = "dfs.hosts.exclude"

// RefreshPath re-reads dfs.hosts.exclude (POST; the bearer token when one
// is set), as ClientProtocol.refreshNodes.
const RefreshPath = DataNodesPath + "/refresh"

// An excluded DataNode stays in the table and keeps its heartbeats, as a
// decommissioned DataNode does in Hadoop, but the service decides nothing
// on it: it never enters the slow sets (a member leaves at once, logged,
// and comes back only after slowpeer.slow.enter.after of findings once it
// is no longer excluded), its host gets no new Hive work (AvoidedHosts),
// it counts as slowpeer_datanodes{state="excluded"} rather than live or
// dead, so that no alert fires on it, /v1/datanodes and the dashboard
// show it as excluded, and the JMX lists it as "Decommissioned". The raw
// slow-peer reports (/slowpeers, Hadoop's view) and the diagnosis
// (/v1/slownodes) still show what its peers measure.

// Refresh is what RefreshNodes read.
type Refresh struct {
	// File is dfs.hosts.exclude, "" when it is not set.
	File string `json:"file"`
	// Entries is the number of entries in it.
	Entries int `json:"entries"`
	// Excluded is the number of DataNodes in the table it excludes.
	Excluded int `json:"excluded"`
	// Unresolved are the host names of the file that did not resolve:
	// they match DataNode ids by name only.
	Unresolved []string `json:"unresolved"`
}

// RefreshNodes reads Config.HostsExcludeFile again (resolving its names
// with Config.HostsLookup, when set) and puts it in force at once: the
// excluded DataNodes leave the slow sets. A file that cannot be read or
// parsed is an error naming it, and the set in force is kept. Without a
// file, the set is emptied.
func (s *Server) RefreshNodes(ctx context.Context) (Refresh, error) {
	r := Refresh{File: s.cfg.HostsExcludeFile, Unresolved: []string{}}
	set := &hosts.Set{}
	if r.File != "" {
		var err error
		var unresolved []string
		if set, unresolved, err = hosts.ReadFile(ctx, r.File, s.cfg.HostsLookup); err != nil {
			return r, fmt.Errorf("%s: %w", HostsExcludeKey, err)
		}
		r.Unresolved = append(r.Unresolved, unresolved...)
		slices.Sort(r.Unresolved)
	}
	before := s.excluded.Swap(set)
	now := s.now()
	r.Entries = set.Len()
	_, _, r.Excluded = s.dataNodeCounts(now)
	left := s.dropFromSlowSets(now, s.Excluded, "excluded")
	if r.File == "" && before.Len() == 0 {
		return r, nil // nothing was excluded, nothing is
	}
	attrs := []any{slog.String("file", r.File), slog.Int("entries", r.Entries),
		slog.Int("excludedDataNodes", r.Excluded), slog.Int("leftSlowSet", left)}
	if len(r.Unresolved) > 0 {
		attrs = append(attrs, slog.Any("unresolved", r.Unresolved))
	}
	s.log.Info("refreshed "+HostsExcludeKey, attrs...)
	return r, nil
}

// Excluded reports whether dfs.hosts.exclude, as last read, excludes the
// DataNode node.
func (s *Server) Excluded(node string) bool {
	return s.excluded.Load().Contains(node)
}

// AvoidedHosts returns, sorted, the hosts that get no new Hive work at
// now: those of SlowHosts, and every host dfs.hosts.exclude names (with
// or without a port, and the addresses its names resolved to). It fits the
// slowHosts argument of the HiveServer picker's handlers.
func (s *Server) AvoidedHosts(now time.Time) []string {
	avoid := append(s.SlowHosts(now), s.excluded.Load().Hosts()...)
	slices.Sort(avoid)
	return slices.Compact(avoid)
}

// dropFromSlowSets removes from both slow sets, at once, the nodes for
// which drop is true (a link when either end is), logging each member that
// leaves with reason; it returns how many left.
func (s *Server) dropFromSlowSets(now time.Time, drop func(node string) bool, reason string) int {
	d := s.diag
	d.stepMu.Lock()
	defer d.stepMu.Unlock()
	left := s.slowSet.Remove(drop)
	links := s.slowLinks.Remove(func(link string) bool {
		a, b := linkEnds(link)
		return drop(a) || drop(b)
	})
	for _, n := range left {
		s.decisions.left(now, setNodes, n, reason)
	}
	for _, l := range links {
		s.decisions.left(now, setLinks, l, reason)
	}
	return len(left) + len(links)
}

// linkEnds returns the two nodes of a link entity "link:a|b".
func linkEnds(link string) (a, b string) {
	a, b, _ = strings.Cut(strings.TrimPrefix(link, "link:"), "|")
	return a, b
}

// refreshNodes handles POST /v1/datanodes/refresh.
func (s *Server) refreshNodes(c *gin.Context) {
	r, err := s.RefreshNodes(c.Request.Context())
	if err != nil {
		s.log.Error("refresh nodes", slog.Any("err", err))
		s.fail(c, http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, r)
}

// countable drops the evidence of excluded nodes and of nodes the
// DataNode table holds dead at now, and links with such an end. A node
// the table does not know (a peer that runs no agent) counts.
func (s *Server) countable(now time.Time, counts []tracker.NodeCount) []tracker.NodeCount {
	set := s.excluded.Load()
	return slices.DeleteFunc(slices.Clone(counts), func(c tracker.NodeCount) bool { return !s.countsFor(now, set, c.Node) })
}

// countsFor reports whether the evidence of entity, a node or a link,
// counts: no end of it is excluded by set or dead at now.
func (s *Server) countsFor(now time.Time, set *hosts.Set, entity string) bool {
	ok := func(node string) bool {
		if set.Contains(node) {
			return false
		}
		st, _ := s.nodes.State(now, node)
		return st != Dead
	}
	if strings.HasPrefix(entity, "link:") {
		a, b := linkEnds(entity)
		return ok(a) && ok(b)
	}
	return ok(entity)
}
