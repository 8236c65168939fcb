package suspect

import (
	"slices"
	"time"
)

// recentEvidence is how old a pair's latest latency may be to count in a
// suspicion rule: a few coverage rounds of the agents.
const recentEvidence = 2 * time.Minute

// The rack relations of a pair.
const (
	sameRack = iota
	otherRack
)

// obs is the latest latency of one pair, shared by its reporter's out
// map and its peer's in map.
type obs struct {
	latencyMs float64
	at        time.Time // the heartbeat that brought it
	rel       int       // sameRack or otherRack
}

// member is what the model knows of one node.
type member struct {
	rack string
	out  map[string]*obs // peer → latest from this node
	in   map[string]*obs // reporter → latest towards this node
	// level is the median of out, each over the cluster's level of its
	// rack relation: 1 for a node that sends as the cluster does; 0 when
	// not known.
	level float64
	dirty bool
	// reported is the last heartbeat with recent latencies: the node is
	// an agent that answers probe requests.
	reported time.Time
}

// model holds the latest latencies and the levels. Not safe for
// concurrent use: the Detector guards it.
type model struct {
	rackOf func(string) string
	nodes  map[string]*member
	// cluster is the median latency of every pair by rack relation, 0
	// when not known; fullAt when it was last computed.
	cluster [2]float64
	fullAt  time.Time
	pairs   int
	dirty   bool
	scratch []float64
}

// minLevelPeers is the fewest peers a node's level rests on: the median
// of two peers, one of them slow, is half slow.
const minLevelPeers = 3

// fullEvery is how often the cluster's levels are recomputed once the
// model holds more than smallModel pairs; smaller models, every refresh.
const (
	fullEvery  = 5 * time.Second
	smallModel = 20000
)

func newModel(rack func(string) string) *model {
	return &model{rackOf: rack, nodes: make(map[string]*member)}
}

func (m *model) node(name string) *member {
	n := m.nodes[name]
	if n == nil {
		n = &member{out: make(map[string]*obs), in: make(map[string]*obs)}
		if m.rackOf != nil {
			n.rack = m.rackOf(name)
		}
		m.nodes[name] = n
	}
	return n
}

// record keeps latencyMs as the latest of reporter → peer at now.
func (m *model) record(now time.Time, reporter, peer string, latencyMs float64) {
	r := m.node(reporter)
	o := r.out[peer]
	if o == nil {
		o = &obs{rel: m.relationOf(r, m.node(peer))}
		r.out[peer] = o
		m.node(peer).in[reporter] = o
		m.pairs++
	}
	o.latencyMs, o.at = latencyMs, now
	r.dirty, m.dirty = true, true
}

// relation returns sameRack or otherRack for a pair.
func (m *model) relation(a, b string) int {
	return m.relationOf(m.nodes[a], m.nodes[b])
}

func (m *model) relationOf(a, b *member) int {
	if a == nil || b == nil || a.rack == "" || b.rack == "" || a.rack == b.rack {
		return sameRack
	}
	return otherRack
}

// refresh recomputes the levels at now: the cluster's every fullEvery
// (every time for a small model) and then every node's, else the levels
// of the nodes that reported since.
func (m *model) refresh(now time.Time) {
	full := m.dirty && (m.pairs <= smallModel || now.Sub(m.fullAt) >= fullEvery)
	if full {
		m.fullAt = now
		for rel := range 2 {
			m.scratch = m.scratch[:0]
			for _, n := range m.nodes {
				for _, o := range n.out {
					if o.rel == rel {
						m.scratch = append(m.scratch, o.latencyMs)
					}
				}
			}
			m.cluster[rel] = median(m.scratch)
		}
		m.dirty = false
	}
	for _, n := range m.nodes {
		if !full && !n.dirty {
			continue
		}
		n.dirty = false
		m.scratch = m.scratch[:0]
		for _, o := range n.out {
			if e := m.level(o.rel); e > 0 {
				m.scratch = append(m.scratch, o.latencyMs/e)
			}
		}
		n.level = 0
		if len(m.scratch) >= minLevelPeers {
			n.level = median(m.scratch)
		}
	}
}

// level returns the cluster's level of a rack relation (the other's when
// that one is not known), 0 when nothing is known.
func (m *model) level(rel int) float64 {
	if e := m.cluster[rel]; e > 0 {
		return e
	}
	return m.cluster[1-rel]
}

// expected returns the cluster's level for the pair's rack relation.
func (m *model) expected(reporter, peer string) float64 {
	return m.level(m.relation(reporter, peer))
}

// expectedOf returns the expected latency for the rule of a slow node:
// the cluster's level, times the reporter's own level when it sends
// slower than the cluster.
func (m *model) expectedOf(reporter, peer string) float64 {
	e := m.expected(reporter, peer)
	if r := m.nodes[reporter]; r != nil {
		e *= max(1, r.level)
	}
	return e
}

// expire forgets pairs older than learn, and nodes with nothing left.
func (m *model) expire(now time.Time, learn time.Duration) {
	for name, n := range m.nodes {
		for peer, o := range n.out {
			if now.Sub(o.at) >= learn {
				delete(n.out, peer)
				if p := m.nodes[peer]; p != nil {
					delete(p.in, name)
				}
				m.pairs--
				n.dirty, m.dirty = true, true
			}
		}
	}
	for name, n := range m.nodes {
		if len(n.out) == 0 && len(n.in) == 0 && now.Sub(n.reported) >= learn {
			delete(m.nodes, name)
			m.dirty = true
		}
	}
}

// forget drops a node and its pairs.
func (m *model) forget(name string) {
	n := m.nodes[name]
	if n == nil {
		return
	}
	for peer := range n.out {
		if p := m.nodes[peer]; p != nil {
			delete(p.in, name)
		}
		m.pairs--
	}
	for reporter := range n.in {
		if r := m.nodes[reporter]; r != nil {
			delete(r.out, name)
			r.dirty = true
		}
		m.pairs--
	}
	delete(m.nodes, name)
	m.dirty = true
}

// median returns the median of xs (reordered), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
