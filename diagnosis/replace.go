package diagnosis

import (
	"errors"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Replace makes ps, the peer latencies of one report of reporter at at,
// its whole row: the cells of its earlier report go, as a report replaces
// the one before (the service's heartbeats and the simulator take reports
// this way). A latency of reporter to itself is skipped. It stops at
// ErrFull (a new reporter in a full matrix: none of its cells is in) and
// returns it; a cell Add refuses otherwise is left out and the first such
// error returned after the others are in.
func (m *Matrix) Replace(reporter string, ps []reports.PeerLatency, at time.Time) error {
	m.Forget(reporter)
	var first error
	for _, p := range ps {
		if p.Node == reporter {
			continue
		}
		err := m.Add(reporter, p.Node, p.LatencyMs, int(min(p.Samples, 1<<31-1)), at)
		switch {
		case errors.Is(err, ErrFull):
			return err
		case err != nil && first == nil:
			first = err
		}
	}
	return first
}
