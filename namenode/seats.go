package namenode

import (
	"container/heap"
	"time"
)

// seats are the rows of the diagnosis matrix: which reporters may have
// one, at most max, ranked by trust. A reporter's trust is how long it has
// been live: since when its current run of heartbeats began (the
// DataNode table's live-since); a reporter found dead has none. When every
// seat is taken, a reporter more trusted than the least trusted holder
// takes that one's seat; any other is refused. So a flood of new ids
// cannot push out reporters that were live before it began: it can only
// take free seats and push out itself.
//
// seats never reads the clock. It is not safe for concurrent use.
type seats struct {
	max    int
	byNode map[string]*seat
	order  seatHeap // least trusted first
}

// seat is one reporter's place.
type seat struct {
	node  string
	since time.Time // the start of its live run
	dead  bool      // found dead since; the least trusted
	last  time.Time // its latest row
	i     int       // index in order
}

// newSeats returns max empty seats. It panics unless max > 0.
func newSeats(max int) *seats {
	if max <= 0 {
		panic("BUG: namenode.newSeats: max must be positive")
	}
	return &seats{max: max, byNode: make(map[string]*seat)}
}

// admits reports whether take(node, since, ...) would succeed, and the
// reporter it would evict ("" for none). It changes nothing.
func (s *seats) admits(node string, since time.Time) (evict string, ok bool) {
	if _, held := s.byNode[node]; held || len(s.byNode) < s.max {
		return "", true
	}
	least := s.order[0]
	if !moreTrusted(since, least) {
		return "", false
	}
	return least.node, true
}

// take gives node, live since since, a seat for a row that arrived at
// now, evicting the least trusted holder when every seat is taken; it
// returns the evicted reporter ("" for none), or false, changing nothing,
// when node is not more trusted than any holder (admits).
func (s *seats) take(node string, since, now time.Time) (evicted string, ok bool) {
	if st, held := s.byNode[node]; held {
		st.since, st.dead, st.last = since, false, now
		heap.Fix(&s.order, st.i)
		return "", true
	}
	evicted, ok = s.admits(node, since)
	if !ok {
		return "", false
	}
	if evicted != "" {
		s.release(evicted)
	}
	st := &seat{node: node, since: since, last: now}
	s.byNode[node] = st
	heap.Push(&s.order, st)
	return evicted, true
}

// died marks node's seat, if it holds one, as the least trusted: a dead
// reporter's row stays while its cells are valid, but anyone live may
// take its place.
func (s *seats) died(node string) {
	if st, ok := s.byNode[node]; ok && !st.dead {
		st.dead = true
		heap.Fix(&s.order, st.i)
	}
}

// release frees node's seat and reports whether it held one.
func (s *seats) release(node string) bool {
	st, ok := s.byNode[node]
	if ok {
		heap.Remove(&s.order, st.i)
		delete(s.byNode, node)
	}
	return ok
}

// stale returns the reporters whose latest row arrived validity or
// longer before now: their cells are gone from the matrix.
func (s *seats) stale(now time.Time, validity time.Duration) []string {
	var out []string
	for node, st := range s.byNode {
		if now.Sub(st.last) >= validity {
			out = append(out, node)
		}
	}
	return out
}

// len returns the number of seats taken.
func (s *seats) len() int { return len(s.byNode) }

// moreTrusted reports whether a live reporter, live since since, is more
// trusted than the holder of st: st is dead, or its run began later. A
// tie keeps the holder: reporters that came in the same instant do not
// push each other out.
func moreTrusted(since time.Time, st *seat) bool {
	return st.dead || since.Before(st.since)
}

// seatHeap orders seats least trusted first: dead ones, then by the
// latest start of the live run, then by the greatest id.
type seatHeap []*seat

func (h seatHeap) Len() int { return len(h) }
func (h seatHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.dead != b.dead {
		return a.dead
	}
	if c := a.since.Compare(b.since); c != 0 {
		return c > 0
	}
	return a.node > b.node
}
func (h seatHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *seatHeap) Push(x any) {
	st := x.(*seat)
	st.i = len(*h)
	*h = append(*h, st)
}
func (h *seatHeap) Pop() any {
	old := *h
	st := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return st
}
