package simulate

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/tracker"
)

// readAfter is the margin, beyond two report intervals, that a link must
// last to enter the slow set: one read of the service.
const readAfter = time.Minute

// service is the NameNode side of one algorithm: the real Tracker, the
// real diagnosis Matrix (slowpeer only) and the real SlowSets.
type service struct {
	alg     Algorithm
	tracker *tracker.Tracker
	matrix  *diagnosis.Matrix
	set     *tracker.SlowSet // nodes
	links   *tracker.SlowSet // links, "link:a|b", slowpeer only
	score   *score
	pending []report
}

func newService(alg Algorithm, c *cluster, sc *score) (*service, error) {
	s := &service{alg: alg, tracker: tracker.New(alg.ReportValidity), set: tracker.NewSlowSet(alg.SlowSet), score: sc}
	if alg.Diagnosis != nil {
		dc := *alg.Diagnosis
		dc.Topology = c.topology
		m, err := diagnosis.New(dc)
		if err != nil {
			return nil, err
		}
		s.matrix = m
		// A link rests on the cells of its two ends, which a pause on
		// either end can spoil for one report of each (the rolling windows
		// span less than a report interval): it must outlast two report
		// intervals.
		lc := alg.SlowSet
		lc.EnterReporters = 1
		lc.EnterAfter = max(lc.EnterAfter, 2*alg.Agent.ReportInterval+readAfter)
		s.links = tracker.NewSlowSet(lc)
	}
	return s, nil
}

// apply delivers the tick's reports, in the order of their arrival.
func (s *service) apply(c *cluster) error {
	slices.SortFunc(s.pending, func(a, b report) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.node, b.node))
	})
	for _, r := range s.pending {
		name := c.names[r.node]
		s.tracker.Report(r.at, name, r.slowPeers)
		if s.matrix == nil {
			continue
		}
		s.matrix.Forget(name)
		for _, l := range r.latencies {
			if err := s.matrix.Add(name, l.Key, l.Mean, int(l.Count), r.at); err != nil {
				return fmt.Errorf("simulate: %w", err)
			}
		}
	}
	s.pending = s.pending[:0]
	return nil
}

// step reads the service at now and returns the entities in its slow
// set: nodes, and for slowpeer links.
func (s *service) step(now time.Time, c *cluster) []string {
	if s.matrix == nil {
		s.set.Update(now, s.tracker.Counts(now))
		return s.set.Nodes()
	}
	nodes, links := evidence(s.matrix.Diagnose(now), c)
	s.set.Update(now, nodes)
	s.links.Update(now, links)
	return append(s.set.Nodes(), s.links.Nodes()...)
}
