package tracker

// summary caches, for one slow node, how many of its entries are valid and
// the highest latency among them, so that a read need not refilter every
// entry, as Hadoop's getJsonReports does on every call.
//
// While ok, the valid entries are exactly those with arrival >= oldestValid
// and the others have arrival <= newestExpired (bounds, not necessarily
// arrivals). The summary then holds for every read time q with
// q - oldestValid < validity (when valid > 0) and q - newestExpired >=
// validity (when anyExpired): no entry changes validity in that range.
// Adding, removing and updating entries keep the summary exact where they
// can (an added entry is valid wherever the summary is used, as it lowers
// oldestValid if need be) and clear ok where they cannot: when the highest
// latency leaves, or an entry's class is unclear. A read after that
// refilters the node's entries once.
type summary struct {
	ok            bool
	anyExpired    bool
	valid         int
	maxLatencyMs  float64
	oldestValid   instant
	newestExpired instant
}

// emptySummary is the summary of a node without entries: it holds at every
// time.
var emptySummary = summary{ok: true}

// covers reports whether the summary holds at now.
func (s *summary) covers(now, validity instant) bool {
	if !s.ok {
		return false
	}
	if s.valid > 0 && now-s.oldestValid >= validity {
		return false
	}
	if s.anyExpired && now-s.newestExpired < validity {
		return false
	}
	return true
}

// isValid reports whether an entry that arrived at a is counted as valid;
// sure is false when the bounds cannot tell.
func (s *summary) isValid(a instant) (valid, sure bool) {
	v := s.valid > 0 && a >= s.oldestValid
	e := s.anyExpired && a <= s.newestExpired
	return v, v != e
}

// added counts a new entry that arrived at a with latency l.
func (s *summary) added(a instant, l float64) {
	if !s.ok {
		return
	}
	if s.anyExpired && a <= s.newestExpired {
		// Dated before an expired entry: no read time could see it valid
		// and that one expired, so the summary can never hold again.
		s.ok = false
		return
	}
	if s.valid == 0 || l > s.maxLatencyMs {
		s.maxLatencyMs = l
	}
	if s.valid == 0 || a < s.oldestValid {
		s.oldestValid = a
	}
	s.valid++
}

// removed uncounts the entry that arrived at a with latency l.
func (s *summary) removed(a instant, l float64) {
	if !s.ok {
		return
	}
	switch valid, sure := s.isValid(a); {
	case !sure:
		s.ok = false
	case valid:
		s.valid--
		if s.valid > 0 && l >= s.maxLatencyMs {
			s.ok = false // the next highest is unknown
		}
	}
	// An expired entry leaves newestExpired an upper bound: still right.
}

// replaced counts the entry (a0, l0) as now (a1, l1).
func (s *summary) replaced(a0 instant, l0 float64, a1 instant, l1 float64) {
	if !s.ok {
		return
	}
	if valid, sure := s.isValid(a0); !sure || !valid {
		s.removed(a0, l0)
		s.added(a1, l1)
		return
	}
	switch {
	case l1 >= s.maxLatencyMs:
		s.maxLatencyMs = l1
	case l0 >= s.maxLatencyMs:
		s.ok = false // the highest went down; the next highest is unknown
		return
	}
	s.oldestValid = min(s.oldestValid, a1)
}

// summarizeLocked returns the number of valid entries on slow node id at
// now and the highest latency among them, refiltering the node's entries
// when its summary does not hold at now. The caller holds t.mu.
func (t *Tracker) summarizeLocked(now instant, id uint32) (valid int, maxLatencyMs float64) {
	n := &t.nodes[id]
	s := &n.sum
	if s.covers(now, instant(t.validity)) {
		return s.valid, s.maxLatencyMs
	}
	*s = emptySummary
	for _, e := range n.reportedBy {
		arrival := t.arrivals[e.reporter]
		if !t.valid(now, arrival) {
			if !s.anyExpired || arrival > s.newestExpired {
				s.anyExpired, s.newestExpired = true, arrival
			}
			continue
		}
		s.added(arrival, e.latencyMs)
	}
	return s.valid, s.maxLatencyMs
}
