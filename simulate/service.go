package simulate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/tracker"
)

// service is the NameNode side of one algorithm: the real Tracker, the
// real diagnosis Matrix (slowpeer only) and the real SlowSets.
type service struct {
	alg     Algorithm
	tracker *tracker.Tracker
	matrix  *diagnosis.Matrix
	set     *tracker.SlowSet         // nodes
	links   *tracker.SlowSet         // links, "link:a|b", slowpeer only
	confirm *diagnosis.LinkConfirmer // what feeds links
	// reported holds the arrival of every node's latest report.
	reported map[string]time.Time
	score    *score
	pending  []report
	// fast, for slowpeer with the fast path, are the slow sets that its
	// verdicts admit to beside the diagnosis's evidence; set and links
	// are then slowpeer without it.
	fast *fastSets
	// kinds says what the latest read's diagnosis called each entity.
	kinds func(string) string
}

// fastSets are the slow sets of nodes and links of slowpeer with its
// fast path, and their score.
type fastSets struct {
	nodes, links *tracker.SlowSet
	score        *score
}

// lastKinds returns what the latest read's diagnosis called e, or "".
func (s *service) lastKinds(e string) string {
	if s.kinds == nil {
		return ""
	}
	return s.kinds(e)
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
		// A link is confirmed by reports in a row, as the service
		// confirms it (diagnosis.LinkConfirmer), which is its delay to
		// enter; it leaves as a node does.
		s.links = tracker.NewSlowSet(tracker.LinkSlowSetConfig(alg.SlowSet))
		s.confirm, s.reported = diagnosis.NewLinkConfirmer(dc.MinSamples, alg.ReportValidity), map[string]time.Time{}
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
		// As the service takes a report: it replaces its reporter's row
		// (diagnosis.Matrix.Replace) and feeds the link confirmer.
		s.reported[name] = r.at
		s.confirm.Report(name, r.at, r.latencies)
		if err := s.matrix.Replace(name, r.latencies, r.at); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	s.pending = s.pending[:0]
	return nil
}

// step reads the service at now and returns the entities in its slow
// set (nodes, and for slowpeer links) and what the diagnosis calls each
// (nil for Hadoop's, which says nothing).
func (s *service) step(now time.Time, c *cluster) ([]string, func(string) string) {
	if s.matrix == nil {
		s.set.Update(now, s.tracker.Counts(now))
		return s.set.Nodes(), nil
	}
	// The service's rule: nodes from the findings (diagnosis.Evidence;
	// every simulated reporter sends peerLatencies, so no raw reports
	// count), links from the confirmer.
	findings := s.matrix.Diagnose(now)
	nodes, _ := diagnosis.Evidence(findings, c.rackNodeNames, nil)
	links := s.confirm.Confirm(now, findings, s.reported)
	s.set.Update(now, nodes)
	s.links.Update(now, links)
	if s.fast != nil {
		s.fast.nodes.Update(now, nodes)
		s.fast.links.Update(now, links)
	}
	s.kinds = kinds(findings, c)
	return append(s.set.Nodes(), s.links.Nodes()...), s.kinds
}

// kinds returns what findings call each entity: a node its finding's
// kind (rack for a rack's nodes), a link "link".
func kinds(findings []diagnosis.Finding, c *cluster) func(string) string {
	k := map[string]string{}
	for _, f := range findings {
		switch f.Kind {
		case diagnosis.Inbound, diagnosis.Outbound, diagnosis.Both:
			if _, ok := k[f.Node]; !ok {
				k[f.Node] = string(f.Kind)
			}
		case diagnosis.Rack:
			for _, n := range c.rackNodeNames(f.Rack) {
				k[n] = string(f.Kind)
			}
		}
	}
	return func(e string) string {
		if strings.HasPrefix(e, "link:") { // the slow set of links holds only links
			return string(diagnosis.Link)
		}
		return k[e]
	}
}
