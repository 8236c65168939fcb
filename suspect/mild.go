package suspect

import (
	"math"
	"time"
)

// The mild rule: a node 1.5 to 3 times slower than it was is never far
// above (Config.Ratio) its cluster's level, and a node that is that much
// slower than the others from the start cannot be told from the
// harmless spread of a cluster's machines (some are always 1.5 times
// slower than the median). So the mild rule compares each node with its
// own past: every mildEvery it takes the median, over the pairs measured
// since its last look, of the blocks towards the node (and, apart, of
// the node's own blocks) over the cluster's level, and compares it with
// the node's baseline, a slow average of the same medians. A node whose
// median is Config.MildRatio times its baseline or more in MildRounds
// looks in a row (each on blocks of their own, mildEvery apart) is
// confirmed, of kind inbound, outbound or both. A pause of a few
// seconds moves one look, not MildRounds. No probe request is asked: the
// evidence is the coverage's, from tens of reporters a look.
const (
	// MildRounds is how many looks in a row, mildEvery apart, must find
	// a node Config.MildRatio times its baseline: a minute of evidence.
	MildRounds = 5
	// mildEvery is the least time between two looks at a node: a
	// coverage round of an agent with 79 peers (14.8 s), so that every
	// reporter has a new block in each look.
	mildEvery = 15 * time.Second
	// mildMinPairs is the fewest pairs measured since the last look that
	// a direction's median rests on: with fewer, the median of single
	// blocks is too noisy for a 1.3× step.
	mildMinPairs = 16
	// mildWarm is how many looks build a node's baseline before it may
	// be judged: five minutes.
	mildWarm = 20
	// mildLearn is the baseline's time constant: a node that turns
	// slowly slower over hours moves its baseline with it.
	mildLearn = 30 * time.Minute
)

// mildBase is a node's baseline and its current run, per direction
// (0 inbound, 1 outbound), as natural logarithms of the median over the
// cluster's level.
type mildBase struct {
	base   [2]float64
	n      [2]int     // looks learned
	run    int        // looks in a row far above the baseline
	at     time.Time  // the last look
	excess [2]float64 // the run's looks' sum of each direction's excess over the baseline
	seen   [2]int     // the run's looks with each direction measured
	looked bool       // at is set
	// last is each direction's excess over the baseline at the last
	// look, lastOK whether it was judged.
	last   [2]float64
	lastOK [2]bool
}

// raised reports whether the mild rule's last look found node's
// direction dir (0 inbound, 1 outbound) at least MildRatio times its
// baseline. The caller holds d.mu.
func (d *Detector) raised(node string, dir int) bool {
	n := d.m.nodes[node]
	if n == nil || d.cfg.MildRatio == 0 || !n.mild.lastOK[dir] {
		return false
	}
	return n.mild.last[dir] >= math.Log(d.cfg.MildRatio)
}

// mildStep looks at the next nodes of a round over all of them, a round
// every mildEvery, and returns the node suspicions the mild rule
// confirmed and those it cleared. The caller holds d.mu.
func (d *Detector) mildStep(now time.Time, live func(string) bool) (confirmed, cleared []*suspicion) {
	if d.cfg.MildRatio == 0 {
		return nil, nil
	}
	if len(d.mildQueue) == 0 {
		d.mildQueue = d.m.names()
		d.mildBatch = max(16, len(d.mildQueue)/int(mildEvery/(500*time.Millisecond))+1)
	}
	k := min(d.mildBatch, len(d.mildQueue))
	for _, name := range d.mildQueue[:k] {
		c, cl := d.mildLook(now, name, live)
		if c != nil {
			confirmed = append(confirmed, c)
		}
		if cl != nil {
			cleared = append(cleared, cl)
		}
	}
	clear(d.mildQueue[:k])
	d.mildQueue = d.mildQueue[k:]
	return confirmed, cleared
}

// mildLook is one look at name at now. The caller holds d.mu.
func (d *Detector) mildLook(now time.Time, name string, live func(string) bool) (confirmed, cleared *suspicion) {
	n := d.m.nodes[name]
	if n == nil || !live(name) || n.mild.looked && now.Sub(n.mild.at) < mildEvery {
		return nil, nil
	}
	var x [2]float64
	var ok [2]bool
	for dir, pairs := range [2][]int32{n.in, n.out} {
		d.m.scratch = d.m.scratch[:0]
		for _, i := range pairs {
			o := d.m.pair(i)
			if n.mild.looked && o.atNs <= n.mild.at.UnixNano() || o.age(now) >= recentEvidence {
				continue
			}
			if e := d.m.level(o.rel); e > 0 && o.latencyMs > 0 { // the pair keeps its relation
				d.m.scratch = append(d.m.scratch, o.latencyMs/e)
			}
		}
		if len(d.m.scratch) >= mildMinPairs {
			x[dir], ok[dir] = math.Log(median(d.m.scratch)), true
		}
	}
	// A look waits for both directions of a node measured both ways
	// (up to twice mildEvery), so that a run sees both.
	enough := func(dir int, pairs []int32) bool { return ok[dir] || len(pairs) < mildMinPairs }
	if !ok[0] && !ok[1] || !(enough(0, n.in) && enough(1, n.out)) && n.mild.looked && now.Sub(n.mild.at) < 2*mildEvery {
		return nil, nil // too little measured since the last look
	}
	b := &n.mild
	b.at, b.looked = now, true
	limit := math.Log(d.cfg.MildRatio)
	var far, judged [2]bool
	for dir := range 2 {
		judged[dir] = ok[dir] && b.n[dir] >= mildWarm
		far[dir] = judged[dir] && x[dir]-b.base[dir] >= limit
	}
	for dir := range 2 {
		b.last[dir], b.lastOK[dir] = x[dir]-b.base[dir], judged[dir]
	}
	s := d.sus[name]
	if !judged[0] && !judged[1] { // a baseline still learning
		if s == nil || s.state == Cleared {
			d.learn(b, x, ok)
		}
		return nil, nil
	}
	if !far[0] && !far[1] {
		b.run = 0
		if s == nil || s.state == Cleared {
			d.learn(b, x, ok)
		}
		if s != nil && s.mild && s.state != Confirmed && s.state != Cleared {
			s.state, s.decided = Cleared, now
			return nil, s
		}
		return nil, nil
	}
	if b.run == 0 {
		b.excess, b.seen = [2]float64{}, [2]int{}
	}
	b.run++
	for dir := range 2 {
		if ok[dir] {
			b.excess[dir] += x[dir] - b.base[dir]
			b.seen[dir]++
		}
	}
	// The kind: the directions whose mean excess over the run is at
	// least half the limit (a host 1.5 times slower is far above in one
	// look, only raised in the next).
	raised := func(dir int) bool { return b.seen[dir] > 0 && b.excess[dir]/float64(b.seen[dir]) >= limit/2 }
	raisedRun := func(dir int) bool { return b.excess[dir]/float64(b.seen[dir]) >= limit }
	kind := Both
	switch {
	case !raised(1):
		kind = Inbound
	case !raised(0):
		kind = Outbound
	}
	switch {
	case s == nil || s.state == Cleared:
		if b.run >= MildRounds {
			s = d.openMild(now, name, x, b, kind)
		} else if b.run == 1 {
			d.openMild(now, name, x, b, kind)
			return nil, nil
		} else {
			return nil, nil
		}
	case s.state == Confirmed:
		if s.mild {
			s.lastSlow = now
		}
		// A host whose strong rounds found one direction, the other
		// raised over two looks since: both.
		if b.run >= 2 && (s.kind == Inbound && b.seen[1] >= 2 && raisedRun(1) || s.kind == Outbound && b.seen[0] >= 2 && raisedRun(0)) {
			s.kind = Both
		}
		return nil, nil
	case b.run < MildRounds:
		if s.mild {
			s.kind, s.passed = kind, b.run
		}
		return nil, nil
	}
	// MildRounds looks in a row: confirmed, and a strong suspicion whose
	// rounds have not (a node 2 to 3 times slower, near Ratio) is taken
	// over.
	d.endRound(s)
	s.mild, s.kind, s.passed = true, kind, b.run
	s.state, s.decided, s.lastSlow = Confirmed, now, now
	return s, nil
}

// openMild opens a mild suspicion of name at now. The caller holds d.mu.
func (d *Detector) openMild(now time.Time, name string, x [2]float64, b *mildBase, kind Kind) *suspicion {
	dir := 0
	if kind == Outbound {
		dir = 1
	}
	d.opened.Add(1)
	s := &suspicion{target: name, node: name, opened: now, state: Suspected, kind: kind, mild: true, passed: b.run,
		found: finding{target: name, node: name, rule: kind, latencyMs: math.Exp(x[dir]), expectedMs: math.Exp(b.base[dir])}}
	d.sus[name] = s
	d.dropLinks(name)
	return s
}

// learn moves the baseline towards the look x.
func (d *Detector) learn(b *mildBase, x [2]float64, ok [2]bool) {
	for dir := range 2 {
		if !ok[dir] {
			continue
		}
		a := float64(mildEvery) / float64(mildLearn)
		if b.n[dir] < mildWarm {
			a = 1 / float64(b.n[dir]+1) // the mean of the first looks
		}
		b.base[dir] += a * (x[dir] - b.base[dir])
		b.n[dir]++
	}
}
