package diagnosis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// racks finds the slow racks and takes out of slow and links what they
// explain: the findings of their nodes, and the links that cross their
// edge (one end inside, one outside).
//
// A node of a rack is slow when it is a slow node, or when it is slow
// across the rack's edge: the weighted median, over its pairs with nodes
// outside its rack, of the log latency less μ and the outside end's
// effect is above the limit. The second test finds a rack whose uplink is
// slow even when much of its nodes' traffic stays inside the rack (HDFS
// places the second and third replica in one rack), where the node
// effects are pulled down by the fast inside pairs. A rack is slow when
// it has at least RackMinNodes judged nodes (MinPairs pairs in a
// direction or across the edge) and at least RackFraction of them are
// slow.
func (m *Matrix) racks(f *fit, names []string, logLimit float64, slow []slowNode, links []link) ([]Finding, []slowNode, []link) {
	c := m.cfg
	n := len(f.nCol)
	f.edge(n)

	type tally struct {
		judged, crossing int
		slow             []float64 // latencies of its slow nodes
		worst            int32
		worstMs          float64
	}
	tallies := make([]tally, len(names))
	isSlow := make(map[int32]float64, len(slow))
	for _, s := range slow {
		isSlow[s.id] = s.latencyMs
	}
	for id := range n {
		k := f.rackOf[id]
		if k < 0 {
			continue
		}
		t := &tallies[k]
		cells := f.cross[f.crossStart[id]:f.crossStart[id+1]]
		t.crossing += len(cells)
		judged := len(cells) >= c.MinPairs
		if !judged && int(f.nRow[id]) < c.MinPairs && int(f.nCol[id]) < c.MinPairs {
			continue
		}
		t.judged++
		ms, found := isSlow[int32(id)]
		if judged {
			if e := f.mu + weightedMedian(cells); e > logLimit {
				ms, found = max(ms, math.Exp(e)), true
			}
		}
		if found {
			t.slow = append(t.slow, ms)
			if ms > t.worstMs || len(t.slow) == 1 {
				t.worst, t.worstMs = int32(id), ms
			}
		}
	}
	var findings []Finding
	blamed := make([]bool, len(names))
	for k, t := range tallies {
		if t.judged < c.RackMinNodes || float64(len(t.slow)) < c.RackFraction*float64(t.judged) {
			continue
		}
		blamed[k] = true
		slices.Sort(t.slow)
		findings = append(findings, Finding{
			Node: m.nodes.name[t.worst], Kind: Rack, Rack: names[k], Reporters: t.crossing,
			LatencyMs: stat.Quantile(0.5, stat.Empirical, t.slow, nil),
		})
	}
	if len(findings) == 0 {
		return nil, slow, links
	}
	in := func(id int32) bool { k := f.rackOf[id]; return k >= 0 && blamed[k] }
	slow = slices.DeleteFunc(slow, func(s slowNode) bool { return in(s.id) })
	links = slices.DeleteFunc(links, func(l link) bool {
		return f.rackOf[l.from] != f.rackOf[l.to] && (in(l.from) || in(l.to))
	})
	return findings, slow, links
}

// rackIndex numbers the racks of the nodes with cells into f.rackOf (-1:
// no rack), lists the cells inside a rack in f.inside, and returns the
// racks' names by number.
func (f *fit) rackIndex(m *Matrix) []string {
	n := len(f.nCol)
	f.rackOf = resize(f.rackOf, n)
	index := make(map[string]int32)
	var names []string
	for id := range n {
		f.rackOf[id] = -1
		if f.nRow[id] == 0 && f.nCol[id] == 0 {
			continue
		}
		rack := m.cfg.Topology.Rack(m.nodes.name[id])
		if rack == "" {
			continue
		}
		k, ok := index[rack]
		if !ok {
			k = int32(len(names))
			index[rack] = k
			names = append(names, rack)
		}
		f.rackOf[id] = k
	}
	for k, i := range f.rows {
		for c := f.start[k]; c < f.start[k+1]; c++ {
			if ri := f.rackOf[i]; ri >= 0 && ri == f.rackOf[f.peer[c]] {
				f.inside = append(f.inside, c)
			}
		}
	}
	return names
}

// edge gathers, for each node with a rack, its cells with nodes outside
// the rack, as the log latency less mu and the outside end's effect, into
// f.cross[f.crossStart[id]:f.crossStart[id+1]].
func (f *fit) edge(n int) {
	f.crossStart = resize(f.crossStart, n+1)
	crosses := func(do func(inside int32, x float64, w float64)) {
		for k, i := range f.rows {
			for c := f.start[k]; c < f.start[k+1]; c++ {
				j := f.peer[c]
				ri, rj := f.rackOf[i], f.rackOf[j]
				if ri == rj {
					continue
				}
				if ri >= 0 {
					do(i, f.y[c]-f.mu-f.r[j], f.w[c])
				}
				if rj >= 0 {
					do(j, f.y[c]-f.mu-f.s[i], f.w[c])
				}
			}
		}
	}
	crosses(func(id int32, _, _ float64) { f.crossStart[id+1]++ })
	for id := range n {
		f.crossStart[id+1] += f.crossStart[id]
	}
	f.cross = resize(f.cross, int(f.crossStart[n]))
	f.next = append(f.next[:0], f.crossStart[:n]...)
	crosses(func(id int32, x, w float64) {
		f.cross[f.next[id]] = pair{x, w}
		f.next[id]++
	})
}
