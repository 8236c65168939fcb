package diagnosis

import (
	"cmp"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Diagnose drops the cells that expired at now (as Expire), fits the valid
// cells with enough samples and returns what is slow, slowest first: slow
// receivers, senders and hosts, bad links, and slow racks in place of
// their nodes. It returns an empty, non-nil slice when nothing is slow.
func (m *Matrix) Diagnose(now time.Time) []Finding {
	m.Expire(now)
	findings := []Finding{}
	if !m.started {
		return findings
	}
	f := &m.scratch
	f.load(m, m.instant(now))
	if len(f.y) == 0 {
		return findings
	}
	f.polish()
	c := m.cfg
	medianMs := math.Exp(f.mu)
	logLimit := math.Log(max(c.FloorMs, c.SlowFactor*medianMs))

	// Nodes, by the effect of each direction judged.
	var slow []slowNode
	for id := range f.nCol {
		in := int(f.nCol[id]) >= c.MinPairs && f.mu+f.r[id] > logLimit
		out := int(f.nRow[id]) >= c.MinPairs && f.mu+f.s[id] > logLimit
		n := slowNode{id: int32(id)}
		switch {
		case in && out:
			n.kind, n.reporters = Both, int(f.nCol[id]+f.nRow[id])
			n.latencyMs = math.Exp(f.mu + max(f.r[id], f.s[id]))
		case in:
			n.kind, n.reporters, n.latencyMs = Inbound, int(f.nCol[id]), math.Exp(f.mu+f.r[id])
		case out:
			n.kind, n.reporters, n.latencyMs = Outbound, int(f.nRow[id]), math.Exp(f.mu+f.s[id])
		default:
			continue
		}
		slow = append(slow, n)
	}
	slow = m.racks(f, slow, medianMs, &findings)
	for _, n := range slow {
		findings = append(findings, Finding{
			Node: m.nodes.name[n.id], Kind: n.kind, Reporters: n.reporters,
			LatencyMs: n.latencyMs, MedianMs: medianMs,
		})
	}
	findings = append(findings, m.links(f, logLimit, medianMs)...)
	sortFindings(findings)
	return findings
}

// slowNode is a node found slow in one direction or both.
type slowNode struct {
	id        int32
	kind      Kind
	reporters int
	latencyMs float64
}

// links finds the single slow pairs: a residual above both ln(SlowFactor)
// and LinkDeviations robust deviations, on a cell above the slow limit,
// between two nodes judged in the directions concerned. The two directions
// of a pair make one finding.
func (m *Matrix) links(f *fit, logLimit, medianMs float64) []Finding {
	c := m.cfg
	limit := max(math.Log(c.SlowFactor), c.LinkDeviations*f.sigma)
	type link struct {
		from, to int32
		y        float64
	}
	var found []link
	for k, i := range f.rows {
		if int(f.nRow[i]) < c.MinPairs {
			continue
		}
		for x := f.start[k]; x < f.start[k+1]; x++ {
			j := f.peer[x]
			if f.res[x] > limit && f.y[x] > logLimit && int(f.nCol[j]) >= c.MinPairs {
				found = append(found, link{i, j, f.y[x]})
			}
		}
	}
	// Bring the two directions of a pair together, the slower first.
	slices.SortFunc(found, func(a, b link) int {
		return cmp.Or(
			cmp.Compare(min(a.from, a.to), min(b.from, b.to)),
			cmp.Compare(max(a.from, a.to), max(b.from, b.to)),
			cmp.Compare(b.y, a.y),
		)
	})
	var out []Finding
	for x := 0; x < len(found); x++ {
		l := found[x]
		fd := Finding{
			Node: m.nodes.name[l.from], Kind: Link, Peer: m.nodes.name[l.to],
			Reporters: 1, LatencyMs: math.Exp(l.y), MedianMs: medianMs,
		}
		if x+1 < len(found) && found[x+1].from == l.to && found[x+1].to == l.from {
			fd.Reporters = 2
			x++
		}
		out = append(out, fd)
	}
	return out
}

// racks replaces the slow nodes of each rack whose judged nodes are nearly
// all slow by one rack finding, appended to findings, and returns the slow
// nodes left.
func (m *Matrix) racks(f *fit, slow []slowNode, medianMs float64, findings *[]Finding) []slowNode {
	c := m.cfg
	if c.Topology.Len() == 0 || len(slow) == 0 {
		return slow
	}
	type tally struct {
		judged int
		slow   []slowNode
	}
	byRack := make(map[string]*tally)
	for id := range f.nCol {
		if int(f.nCol[id]) < c.MinPairs && int(f.nRow[id]) < c.MinPairs {
			continue
		}
		if rack := c.Topology.Rack(m.nodes.name[id]); rack != "" {
			t := byRack[rack]
			if t == nil {
				t = &tally{}
				byRack[rack] = t
			}
			t.judged++
		}
	}
	for _, n := range slow {
		if t := byRack[c.Topology.Rack(m.nodes.name[n.id])]; t != nil {
			t.slow = append(t.slow, n)
		}
	}
	blamed := make(map[int32]bool)
	for rack, t := range byRack {
		if t.judged < c.RackMinNodes || float64(len(t.slow)) < c.RackFraction*float64(t.judged) {
			continue
		}
		fd := Finding{Kind: Rack, Rack: rack, MedianMs: medianMs}
		lat := make([]float64, 0, len(t.slow))
		worst := t.slow[0]
		for _, n := range t.slow {
			blamed[n.id] = true
			fd.Reporters += n.reporters
			lat = append(lat, n.latencyMs)
			if n.latencyMs > worst.latencyMs || n.latencyMs == worst.latencyMs && m.nodes.name[n.id] < m.nodes.name[worst.id] {
				worst = n
			}
		}
		slices.Sort(lat)
		fd.Node, fd.LatencyMs = m.nodes.name[worst.id], stat.Quantile(0.5, stat.Empirical, lat, nil)
		*findings = append(*findings, fd)
	}
	return slices.DeleteFunc(slow, func(n slowNode) bool { return blamed[n.id] })
}
