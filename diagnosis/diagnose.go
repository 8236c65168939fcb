package diagnosis

import (
	"cmp"
	"math"
	"slices"
	"time"
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
	topology := m.cfg.Topology.Len() > 0
	var rackNames []string
	f.inside = f.inside[:0]
	if topology {
		rackNames = f.rackIndex(m)
	}
	f.polish()
	medianMs := math.Exp(f.mu)
	logLimit := math.Log(max(m.cfg.FloorMs, m.cfg.SlowFactor*medianMs))
	slow := m.slowNodes(f, logLimit)
	links := m.links(f, logLimit)
	var racks []Finding
	if topology {
		racks, slow, links = m.racks(f, rackNames, logLimit, slow, links)
	}
	findings = append(findings, racks...)
	for _, n := range slow {
		findings = append(findings, Finding{
			Node: m.nodes.name[n.id], Kind: n.kind, Reporters: n.reporters, LatencyMs: n.latencyMs,
		})
	}
	for _, l := range links {
		fd := Finding{Node: m.nodes.name[l.from], Kind: Link, Peer: m.nodes.name[l.to], Reporters: 1, LatencyMs: math.Exp(l.y)}
		if l.both {
			fd.Reporters = 2
		}
		findings = append(findings, fd)
	}
	for i := range findings {
		findings[i].MedianMs = medianMs
	}
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

// slowNodes judges each node by its effects: a direction with MinPairs
// measured pairs is slow when its typical latency is above the limit, if
// there are others to judge it against (fit.compared).
func (m *Matrix) slowNodes(f *fit, logLimit float64) []slowNode {
	var slow []slowNode
	senders, receivers := f.compared(m.cfg.MinPairs)
	for id := range f.nCol {
		in := receivers && int(f.nCol[id]) >= m.cfg.MinPairs && f.mu+f.r[id] > logLimit
		out := senders && int(f.nRow[id]) >= m.cfg.MinPairs && f.mu+f.s[id] > logLimit
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
	return slow
}

// link is a bad pair: from sent to to, in log latency y, the slower
// direction if both were found.
type link struct {
	from, to int32
	y        float64
	both     bool
}

// links finds the single slow pairs: a residual above both ln(SlowFactor)
// and LinkDeviations robust deviations (fit.pairSigma), on a cell above
// the slow limit, between two nodes judged in the directions concerned.
// A node with two or more such cells as a sender, or two or more as a
// receiver, has none of them as links (see spread). The two directions of
// a pair make one link.
func (m *Matrix) links(f *fit, logLimit float64) []link {
	c := m.cfg
	least := math.Log(c.SlowFactor)
	var found []link
	if senders, receivers := f.compared(c.MinPairs); !senders || !receivers {
		return nil
	}
	for k, i := range f.rows {
		if int(f.nRow[i]) < c.MinPairs {
			continue
		}
		for x := f.start[k]; x < f.start[k+1]; x++ {
			j := f.peer[x]
			if f.res[x] <= least || f.y[x] <= logLimit || int(f.nCol[j]) < c.MinPairs {
				continue
			}
			if f.res[x] > c.LinkDeviations*f.pairSigma(i, j) {
				found = append(found, link{from: i, to: j, y: f.y[x]})
			}
		}
	}
	found = spread(found)
	// Bring the two directions of a pair together, the slower first.
	slices.SortFunc(found, func(a, b link) int {
		return cmp.Or(
			cmp.Compare(min(a.from, a.to), min(b.from, b.to)),
			cmp.Compare(max(a.from, a.to), max(b.from, b.to)),
			cmp.Compare(b.y, a.y),
		)
	})
	out := found[:0]
	for x := 0; x < len(found); x++ {
		l := found[x]
		if x+1 < len(found) && found[x+1].from == l.to && found[x+1].to == l.from {
			l.both = true
			x++
		}
		out = append(out, l)
	}
	return out
}

// spread drops the slow cells that share their sender with another slow
// cell, or their receiver: a bad link is one pair, and a node that is slow
// with several of its peers but not with most (then its effect would be
// slow) is a node whose measurements stray, not a node with several bad
// links. A sender starved of CPU for part of the time, or a receiver, is
// slow in the blocks that met the starving, which a pair's median over a
// few blocks does not always outvote: the cells it spoils are some of its
// row (or column) chosen by chance. The two directions of one pair are a
// sender and a receiver each once, and stay.
func spread(found []link) []link {
	if len(found) < 2 {
		return found
	}
	from, to := map[int32]int{}, map[int32]int{}
	for _, l := range found {
		from[l.from]++
		to[l.to]++
	}
	out := found[:0]
	for _, l := range found {
		if from[l.from] == 1 && to[l.to] == 1 {
			out = append(out, l)
		}
	}
	return out
}

// compared tells whether the senders, and the receivers, are enough for
// any of them to be judged: more than minPairs rows (columns) in the fit,
// so that each is judged against at least minPairs others. A new
// cluster's matrix fills a row at a time, as its agents' first reports
// come; with two rows the fit puts each half-way from the other, and the
// row of a reporter that timed its first packets on a busy CPU is slow
// against the only other.
func (f *fit) compared(minPairs int) (senders, receivers bool) {
	columns := 0
	for _, n := range f.nCol {
		if n > 0 {
			columns++
		}
	}
	return len(f.rows) > minPairs, columns > minPairs
}
