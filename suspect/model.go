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

// obs is the latest latency of one pair, in the model's arena: its
// reporter's out and its peer's in hold its index there.
//
// It holds no pointer (the time is in Unix nanoseconds, the ends are
// members' ids), and neither do out and in: the garbage collector has
// nothing to scan in the hundreds of thousands of pairs a large cluster
// has, and a pair costs its 32 bytes and two indices, not two map
// entries keyed by name.
type obs struct {
	latencyMs      float64
	atNs           int64 // the heartbeat that brought it (Time.UnixNano)
	reporter, peer int32 // the members' ids (model.byID)
	rel            int   // sameRack or otherRack
}

// end returns the id of o's end seen from the other: its peer when out
// (from its reporter), else its reporter.
func (o *obs) end(out bool) int32 {
	if out {
		return o.peer
	}
	return o.reporter
}

// age returns how long before now o was measured.
func (o *obs) age(now time.Time) time.Duration { return time.Duration(now.UnixNano() - o.atNs) }

// member is what the model knows of one node.
type member struct {
	// name is the node's id, the one string of it that the model holds:
	// not a heartbeat's copy each.
	name string
	id   int32 // its index in model.byID, while it is in the model
	at   int   // its index in model.order
	rack string
	out  []int32 // its pairs to its peers (indices in model.arena)
	in   []int32 // its reporters' pairs towards it
	// level is the median of out, each over the cluster's level of its
	// rack relation: 1 for a node that sends as the cluster does; 0 when
	// not known.
	level   float64
	dirty   bool
	version int64 // the cluster's levels level was computed with
	// reported is the last heartbeat with recent latencies: the node is
	// an agent that answers probe requests.
	reported time.Time
	// mild is the node's baseline for the mild rule (mild.go).
	mild mildBase
}

// model holds the latest latencies and the levels. Not safe for
// concurrent use: the Detector guards it.
type model struct {
	rackOf func(string) string
	nodes  map[string]*member
	// order holds the nodes in the order they came (a node that leaves
	// takes the last one's place): the sample of refresh and the rounds
	// of expireSome and of the mild rule go by it, not by Go's random
	// map order, so that the same evidence makes the same verdicts.
	order []*member
	// byID holds the nodes by id; an id freed by a node that left goes
	// to the next new node (freeIDs).
	byID    []*member
	freeIDs []int32
	// arena holds the pairs; free the slots of forgotten ones.
	arena []obs
	free  []int32
	// maxPeers bounds each reporter's pairs (Config.MaxPeers); replaced
	// counts the pairs a newer one of their reporter replaced past it.
	maxPeers int
	replaced int64
	// cluster is the median latency of every pair by rack relation, 0
	// when not known; fullAt when it was last computed.
	cluster [2]float64
	fullAt  time.Time
	pairs   int
	dirty   bool
	version int64     // counts the computations of cluster
	scratch []float64 // levelOf's
	// expiring are the nodes expireSome has yet to look at in its
	// round, expireBatch how many a Step.
	expiring    []string
	expireBatch int
}

// expireSteps is how many Steps a round of expireSome takes: a minute.
const expireSteps = 120

// minLevelPeers is the fewest peers a node's level rests on: the median
// of two peers, one of them slow, is half slow.
const minLevelPeers = 3

// fullEvery is how often the cluster's levels are recomputed once the
// model holds more than smallModel pairs; smaller models, every refresh.
const (
	fullEvery  = 5 * time.Second
	smallModel = 20000
	// sampleSize bounds the pairs the cluster's levels are the median
	// of: their median is within about 2 % of the spread of the whole's.
	sampleSize = 4096
)

func newModel(rack func(string) string, maxPeers int) *model {
	return &model{rackOf: rack, nodes: make(map[string]*member), maxPeers: maxPeers}
}

func (m *model) node(name string) *member {
	n := m.nodes[name]
	if n == nil {
		n = &member{name: name, at: len(m.order)}
		if m.rackOf != nil {
			n.rack = m.rackOf(name)
		}
		if k := len(m.freeIDs); k > 0 {
			n.id, m.freeIDs = m.freeIDs[k-1], m.freeIDs[:k-1]
			m.byID[n.id] = n
		} else {
			n.id = int32(len(m.byID))
			m.byID = append(m.byID, n)
		}
		m.nodes[name] = n
		m.order = append(m.order, n)
	}
	return n
}

// remove deletes node n, which holds no pair: the last of order takes
// its place.
func (m *model) remove(n *member) {
	last := m.order[len(m.order)-1]
	m.order[n.at], last.at = last, n.at
	m.order[len(m.order)-1] = nil
	m.order = m.order[:len(m.order)-1]
	delete(m.nodes, n.name)
	m.byID[n.id] = nil
	m.freeIDs = append(m.freeIDs, n.id)
	m.dirty = true
}

// names returns the nodes' names in order.
func (m *model) names() []string {
	out := make([]string, len(m.order))
	for i, n := range m.order {
		out[i] = n.name
	}
	return out
}

// pair returns the pair at index i of the arena: valid until the next
// record.
func (m *model) pair(i int32) *obs { return &m.arena[i] }

// outPair returns the pair r → peer, nil when the model has none.
func (m *model) outPair(r *member, peer string) *obs {
	p := m.nodes[peer]
	if r == nil || p == nil {
		return nil
	}
	for _, i := range r.out {
		if m.arena[i].peer == p.id {
			return &m.arena[i]
		}
	}
	return nil
}

// peersOf returns the names of n's peers, and reportersOf those of its
// reporters.
func (m *model) peersOf(n *member) []string     { return m.ends(n.out, true) }
func (m *model) reportersOf(n *member) []string { return m.ends(n.in, false) }

func (m *model) ends(pairs []int32, peer bool) []string {
	out := make([]string, len(pairs))
	for k, i := range pairs {
		out[k] = m.byID[m.arena[i].end(peer)].name
	}
	return out
}

// record keeps latencyMs as the latest of r → peer at now, and returns
// the pair (valid until the next record); r is the reporter's member
// (m.node). A reporter holds at most maxPeers pairs: a new pair past
// them takes the place of its oldest.
func (m *model) record(now time.Time, r *member, peer string, latencyMs float64) *obs {
	o := m.outPair(r, peer)
	if o == nil {
		if len(r.out) >= m.maxPeers {
			m.dropOldest(r)
			m.replaced++
		}
		p := m.node(peer)
		i := m.newSlot()
		o = &m.arena[i]
		*o = obs{reporter: r.id, peer: p.id, rel: m.relationOf(r, p)}
		r.out = append(r.out, i)
		p.in = append(p.in, i)
		m.pairs++
	}
	o.latencyMs, o.atNs = latencyMs, now.UnixNano()
	r.dirty, m.dirty = true, true
	return o
}

// newSlot returns a free index of the arena.
func (m *model) newSlot() int32 {
	if k := len(m.free); k > 0 {
		i := m.free[k-1]
		m.free = m.free[:k-1]
		return i
	}
	m.arena = append(m.arena, obs{})
	return int32(len(m.arena) - 1)
}

// dropOldest forgets r's oldest pair (of those a heartbeat brought
// together, the first by name: not the order of r.out, so that the same
// evidence makes the same model), and its peer when nothing else is
// known of it (as expireSome would).
func (m *model) dropOldest(r *member) {
	oldest := int32(-1)
	for _, i := range r.out {
		if oldest < 0 {
			oldest = i
			continue
		}
		x, o := &m.arena[i], &m.arena[oldest]
		if x.atNs < o.atNs || x.atNs == o.atNs && m.byID[x.peer].name < m.byID[o.peer].name {
			oldest = i
		}
	}
	_, p := m.unpair(oldest)
	m.release(p)
}

// unpair forgets the pair at index i at both its ends, and returns its
// reporter's and its peer's members.
func (m *model) unpair(i int32) (r, p *member) {
	o := &m.arena[i]
	r, p = m.byID[o.reporter], m.byID[o.peer]
	r.out = without(r.out, i)
	p.in = without(p.in, i)
	m.free = append(m.free, i)
	m.pairs--
	return r, p
}

// without removes i from is (the last takes its place).
func without(is []int32, i int32) []int32 {
	k := slices.Index(is, i)
	is[k] = is[len(is)-1]
	return is[:len(is)-1]
}

// release forgets p when nothing is known of it any more: no pair, and
// never a reporter (expireSome forgets a reporter once Learn has passed
// since its last heartbeat). So the nodes a reporter names cost nothing
// once their pairs are gone.
func (m *model) release(p *member) {
	if len(p.in) == 0 && len(p.out) == 0 && p.reported.IsZero() {
		m.remove(p)
	}
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

// refresh recomputes the cluster's levels at now, every fullEvery once
// the model holds more than smallModel pairs (else whenever a pair
// changed), from a sample of at most sampleSize pairs: those of every
// k-th node of order (k the pairs over sampleSize), from the next node
// on at each refresh, so that k refreshes see every node; the nodes'
// levels follow lazily (levelOf). A level is the lower of the median of
// the pairs and the median of the reporters' medians: a slow host is
// half the pairs of a 4-node cluster but one reporter of four, a slow
// rack one third of the pairs across racks but half of each reporter's.
func (m *model) refresh(now time.Time) {
	if !m.dirty || m.pairs > smallModel && now.Sub(m.fullAt) < fullEvery {
		return
	}
	m.fullAt, m.dirty = now, false
	m.version++
	var pairs, nodes [2][]float64
	var own []float64
	k := max(1, (m.pairs+sampleSize-1)/sampleSize)
	seen := 0
	for i := int(m.version % int64(k)); i < len(m.order); i += k {
		n := m.order[i]
		for rel := range 2 {
			own = own[:0]
			for _, i := range n.out {
				if o := &m.arena[i]; o.rel == rel {
					own = append(own, o.latencyMs)
				}
			}
			pairs[rel] = append(pairs[rel], own...)
			if len(own) > 0 {
				nodes[rel] = append(nodes[rel], median(own))
			}
		}
		if seen += len(n.out); seen >= sampleSize {
			break
		}
	}
	for rel := range 2 {
		m.cluster[rel] = min(median(pairs[rel]), median(nodes[rel]))
	}
}

// levelOf returns n's level, recomputed when n or the cluster's levels
// changed since.
func (m *model) levelOf(n *member) float64 {
	if !n.dirty && n.version == m.version {
		return n.level
	}
	n.dirty, n.version = false, m.version
	m.scratch = m.scratch[:0]
	for _, i := range n.out {
		o := &m.arena[i]
		if e := m.level(o.rel); e > 0 {
			m.scratch = append(m.scratch, o.latencyMs/e)
		}
	}
	n.level = 0
	if len(m.scratch) >= minLevelPeers {
		n.level = median(m.scratch)
	}
	return n.level
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

// expectedOfPair returns the expected latency of the pair o for the rule
// of a slow node: the cluster's level for its rack relation, times its
// reporter's own level when that one sends slower than the cluster.
func (m *model) expectedOfPair(o *obs) float64 {
	return m.level(o.rel) * max(1, m.levelOf(m.byID[o.reporter]))
}

// expireSome forgets the pairs older than learn of the next nodes of a
// round over all of them, a round a minute at a Step every 500 ms, and
// the nodes with nothing left: no Step holds the model for a whole scan.
func (m *model) expireSome(now time.Time, learn time.Duration) {
	if len(m.expiring) == 0 {
		m.expiring = m.names()
		m.expireBatch = max(64, len(m.expiring)/expireSteps+1)
	}
	k := min(m.expireBatch, len(m.expiring))
	for _, name := range m.expiring[:k] {
		n := m.nodes[name]
		if n == nil {
			continue
		}
		for k := len(n.out) - 1; k >= 0; k-- { // unpair moves the last to k
			if i := n.out[k]; m.arena[i].age(now) >= learn {
				m.unpair(i)
				n.dirty, m.dirty = true, true
			}
		}
		if len(n.out) == 0 && len(n.in) == 0 && now.Sub(n.reported) >= learn {
			m.remove(n)
		}
	}
	clear(m.expiring[:k])
	m.expiring = m.expiring[k:]
}

// forget drops a node and its pairs, and the nodes only they named.
func (m *model) forget(name string) {
	n := m.nodes[name]
	if n == nil {
		return
	}
	for len(n.out) > 0 {
		_, p := m.unpair(n.out[len(n.out)-1])
		m.release(p)
	}
	for len(n.in) > 0 {
		r, _ := m.unpair(n.in[len(n.in)-1])
		r.dirty = true
		m.release(r)
	}
	m.remove(n)
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
