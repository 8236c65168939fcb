package tracker

import "slices"

// rank is a slow node's place in Top.
type rank struct {
	id           uint32
	valid        int
	maxLatencyMs float64
}

// before reports whether a ranks before b in Top: more valid reporters,
// then the higher latency, then the smaller name. The caller holds t.mu.
func (t *Tracker) before(a, b rank) bool {
	if a.valid != b.valid {
		return a.valid > b.valid
	}
	if a.maxLatencyMs != b.maxLatencyMs {
		return a.maxLatencyMs > b.maxLatencyMs
	}
	return t.nodes[a.id].name < t.nodes[b.id].name
}

// selectLocked returns the n best-ranked slow nodes at now, best first, in
// t.best. It keeps them in a heap with the worst of them on top, so a read
// costs one pass over the slow nodes and log n per node that gets in.
// The caller holds t.mu.
func (t *Tracker) selectLocked(now instant, n int) []rank {
	h := t.best[:0]
	for i := range t.nodes {
		if len(t.nodes[i].reportedBy) == 0 {
			continue
		}
		id := uint32(i)
		valid, lat := t.summarizeLocked(now, id)
		if valid == 0 {
			continue
		}
		c := rank{id: id, valid: valid, maxLatencyMs: lat}
		switch {
		case len(h) < n:
			h = append(h, c)
			t.siftUp(h, len(h)-1)
		case t.before(c, h[0]):
			h[0] = c
			t.siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b rank) int {
		if t.before(a, b) {
			return -1
		}
		if t.before(b, a) {
			return 1
		}
		return 0 // a is b: names are unique
	})
	if cap(h) > shrinkAbove && len(h) <= cap(h)/4 {
		t.best = nil
	} else {
		t.best = h
	}
	return h
}

// siftUp restores the heap order of h (worst on top) after h[i] was added.
func (t *Tracker) siftUp(h []rank, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// siftDown restores the heap order of h (worst on top) after h[i] was replaced.
func (t *Tracker) siftDown(h []rank, i int) {
	for {
		worst, l := i, 2*i+1
		if l < len(h) && t.before(h[worst], h[l]) {
			worst = l
		}
		if r := l + 1; r < len(h) && t.before(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
