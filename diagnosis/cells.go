package diagnosis

import "time"

// Cell is one measured pair of the Matrix as Cells gives it.
type Cell struct {
	// Reporter sent to Peer and measured LatencyMs over Samples packets.
	Reporter, Peer string
	LatencyMs      float64
	Samples        int
}

// Cells returns the cells valid at now, at most max of them (max <= 0: all),
// rows in no particular order. The slice is the caller's.
func (m *Matrix) Cells(now time.Time, max int) []Cell {
	t := m.instant(now)
	n := 0 // counted first: appending 200 000 cells one by one allocates twice what they hold
	for _, r := range m.rows {
		for _, c := range r.cells {
			if m.valid(c, t) {
				n++
			}
		}
	}
	if max > 0 {
		n = min(n, max)
	}
	out := make([]Cell, 0, n)
	for _, r := range m.rows {
		for _, c := range r.cells {
			if !m.valid(c, t) {
				continue
			}
			if max > 0 && len(out) == max {
				return out
			}
			out = append(out, Cell{Reporter: m.nodes.name[r.reporter], Peer: m.nodes.name[c.peer],
				LatencyMs: c.latencyMs, Samples: int(c.samples)})
		}
	}
	return out
}
