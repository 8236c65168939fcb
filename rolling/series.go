package rolling

import "sync"

// slot holds the sum and count of the samples of one window of one key.
type slot struct {
	window int64   // the window's index (see Averages.windowOf)
	count  int64   // samples in the window; 0 marks an empty slot
	sum    float64 // sum of their values
}

// series is one key's ring of windows. Window w lives in slot w mod windows,
// so the ring holds at most one window of any windows consecutive ones.
//
// A series is safe for concurrent use.
type series struct {
	mu sync.Mutex
	// dead is set by total when no window is left; a dead series takes no
	// more samples and is about to leave Averages.keys.
	dead bool
	// newest is the highest window index recorded since the series was
	// created. Windows at or below newest - windows are stale: their slot
	// may have been reused, and their samples are dropped.
	newest int64
	slots  []slot

	// Pad to two cache lines, so that the locks of two series written by
	// two CPUs never share a line (nor the adjacent one the CPU prefetches
	// with it).
	_ [128 - 48]byte
}

// newSeries returns a series of windows slots holding count samples of sum
// sum in window w.
func newSeries(w, windows int64, sum float64, count int64) *series {
	s := &series{newest: w, slots: make([]slot, windows)}
	s.slots[ringIndex(w, windows)] = slot{window: w, count: count, sum: sum}
	return s
}

// add records the value v in window w. It reports false, and records
// nothing, when the series is dead.
func (s *series) add(w, windows int64, v float64) bool {
	return s.addBatch(w, windows, v, 1)
}

// addBatch records count (≥ 1) samples adding up to sum in window w; see add.
func (s *series) addBatch(w, windows int64, sum float64, count int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return false
	}
	if w <= s.newest-windows {
		return true // older than the ring can hold next to the newest window
	}
	if w > s.newest {
		s.newest = w
	}
	sl := &s.slots[ringIndex(w, windows)]
	if sl.count == 0 || sl.window != w {
		// The slot is empty or holds window w - k×windows (k ≥ 1), which is
		// stale now that w is recorded.
		*sl = slot{window: w}
	}
	sl.count += count
	sl.sum += sum
	return true
}

// total returns the sum and count of the windows valid at window cur: those
// that start less than windows windows before cur (a window ahead of cur,
// after the clock stepped back, counts as young) and that are not stale. It
// empties every other slot, for good, and marks the series dead when no
// window is left.
func (s *series) total(cur, windows int64) (sum float64, count int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldest := max(cur, s.newest) - windows // windows at or below this are gone
	for i := range s.slots {
		sl := &s.slots[i]
		if sl.count == 0 {
			continue
		}
		if sl.window <= oldest {
			*sl = slot{}
			continue
		}
		sum += sl.sum
		count += sl.count
	}
	if count == 0 {
		s.dead = true
	}
	return sum, count
}

// ringIndex returns w mod windows in [0, windows).
func ringIndex(w, windows int64) int {
	r := w % windows
	if r < 0 {
		r += windows
	}
	return int(r)
}
