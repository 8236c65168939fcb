package namenode

import "time"

// StateOf returns the state of d, a row of the table read at now, as
// /v1/datanodes, the dashboard and "slowpeer admin -report" show it:
// Excluded when dfs.hosts.exclude names it (live or dead), else Dead,
// Stale (live, but silent for Config.StaleAfter, as DatanodeInfo.isStale
// decides), or Live.
func (s *Server) StateOf(now time.Time, d DataNode) State {
	switch {
	case s.Excluded(d.Node):
		return Excluded
	case d.State == Dead:
		return Dead
	case now.Sub(d.LastHeartbeat) >= s.cfg.StaleAfter():
		return Stale
	}
	return Live
}

// dataNodeCounts returns how many DataNodes are live (stale ones
// included, as Hadoop counts them), dead, and excluded at now; the
// excluded ones count in neither of the others.
func (s *Server) dataNodeCounts(now time.Time) (live, dead, excluded int) {
	if s.excluded.Load().Len() == 0 {
		live, dead = s.nodes.Counts(now)
		return live, dead, 0
	}
	return s.nodes.CountsExcept(now, s.Excluded)
}
