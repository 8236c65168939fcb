package tracker

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of SlowSetConfig, chosen from the simulated clusters of
// DETECTION.md ("Simulated clusters") for a slow set fed by the diagnosis
// (the fit wants half of a node's pairs slow, which a pause of a healthy
// host does not make) with reports every 5 minutes.
const (
	// DefaultEnterAfter is slowpeer.slow.enter.after: how long a node must
	// be reported, without a break, before it enters the slow set. Three
	// reads of a minute: long enough to ride over a diagnosis that
	// flickers at the limit, short enough for a slow sender, found only
	// at its own next report, to be in within two report intervals.
	DefaultEnterAfter = 3 * time.Minute
	// DefaultEnterReporters is slowpeer.slow.enter.reporters: how many
	// nodes must report a node at once for it to count as reported. Two:
	// one reporter alone is as likely a slow sender, or a bad link, as a
	// slow peer.
	DefaultEnterReporters = 2
	// DefaultLeaveAfter is slowpeer.slow.leave.after: how long a node of
	// the slow set must go unreported before it leaves. An hour: a node
	// slow half of every hour stays in rather than flapping.
	DefaultLeaveAfter = time.Hour
)

// SlowSetConfig holds the hysteresis of a SlowSet.
type SlowSetConfig struct {
	// EnterAfter is how long a node must be reported at every Update,
	// without a break, before it enters (slowpeer.slow.enter.after,
	// default DefaultEnterAfter). 0: at the first Update that reports it.
	EnterAfter time.Duration
	// EnterReporters is the fewest reporters that make a node reported
	// at an Update (slowpeer.slow.enter.reporters, default
	// DefaultEnterReporters); fewer count as not reported.
	EnterReporters int
	// LeaveAfter is how long a member must go unreported before it leaves
	// (slowpeer.slow.leave.after, default DefaultLeaveAfter). 0: at the
	// first Update that does not report it.
	LeaveAfter time.Duration
}

// DefaultSlowSetConfig returns the defaults.
func DefaultSlowSetConfig() SlowSetConfig {
	return SlowSetConfig{EnterAfter: DefaultEnterAfter, EnterReporters: DefaultEnterReporters, LeaveAfter: DefaultLeaveAfter}
}

// LinkSlowSetConfig returns the hysteresis of the slow set of links beside
// a slow set of nodes of nodes: a link enters on its first confirmed
// finding (diagnosis.LinkConfirmer's reports in a row are its delay, and
// one direction is enough), and leaves as a node does.
func LinkSlowSetConfig(nodes SlowSetConfig) SlowSetConfig {
	lc := nodes
	lc.EnterReporters, lc.EnterAfter = 1, 0
	return lc
}

// RawSlowSetConfig is the hysteresis of none: a node is in the set while
// at least one valid report names it, Hadoop's meaning of a slow peer.
func RawSlowSetConfig() SlowSetConfig {
	return SlowSetConfig{EnterReporters: 1}
}

// Validate returns an error naming the first broken rule, or nil.
func (c SlowSetConfig) Validate() error {
	switch {
	case c.EnterAfter < 0:
		return fmt.Errorf("slow set enter-after must not be negative, got %v", c.EnterAfter)
	case c.EnterReporters < 1:
		return fmt.Errorf("slow set enter-reporters must be at least 1, got %d", c.EnterReporters)
	case c.LeaveAfter < 0:
		return fmt.Errorf("slow set leave-after must not be negative, got %v", c.LeaveAfter)
	}
	return nil
}

// SlowSet is the set of nodes to keep new work away from: slow nodes with
// hysteresis, fed with the evidence of each read (the service and the
// simulator feed it diagnosis.Evidence; Tracker.Counts is Hadoop's raw
// evidence). A node enters only after it has been
// reported by at least EnterReporters nodes at every Update for
// EnterAfter, and leaves only after LeaveAfter without being so reported,
// so that a pause of a few seconds on a healthy host, or a node slow now
// and then, does not move work back and forth. The Tracker keeps Hadoop's
// raw meaning (any valid report); the service's SlowSet is what the
// HiveServer picker, the heartbeat's {"slow": true} and the alerts use.
//
// It never reads the clock: Update takes now, and the times passed in
// should not go back. Safe for concurrent use; construct with NewSlowSet.
type SlowSet struct {
	cfg SlowSetConfig

	// mu is a read-write lock: the service asks Contains on every
	// heartbeat, thousands a second, and Update runs every few seconds.
	mu    sync.RWMutex
	nodes map[string]*slowState // nodes in a streak of reports, and members
	n     int                   // members
}

// slowState is what a SlowSet knows of one node.
type slowState struct {
	member bool
	// since is when the current unbroken streak of reports began (for a
	// node not yet a member).
	since time.Time
	// entered is when the node became a member.
	entered time.Time
	// last is the last Update that reported the node, and reporters its
	// count there.
	last      time.Time
	reporters int
}

// NewSlowSet returns an empty SlowSet. It panics if cfg is not valid.
func NewSlowSet(cfg SlowSetConfig) *SlowSet {
	if err := cfg.Validate(); err != nil {
		panic(fmt.Sprintf("BUG: tracker.NewSlowSet: %v", err))
	}
	return &SlowSet{cfg: cfg, nodes: make(map[string]*slowState)}
}

// Change lists the nodes that entered and left the set in one Update,
// each sorted by name.
type Change struct {
	Entered []string
	Left    []string
}

// Update takes the number of reporters (or measured pairs) of every
// reported node at now (diagnosis.Evidence, or Tracker.Counts; a node left
// out has none) and returns who entered and who left.
func (s *SlowSet) Update(now time.Time, counts []NodeCount) Change {
	var ch Change
	s.mu.Lock()
	reported := make(map[string]bool, len(counts))
	for _, c := range counts {
		if c.Reporters < s.cfg.EnterReporters {
			continue
		}
		reported[c.Node] = true
		st := s.nodes[c.Node]
		if st == nil {
			st = &slowState{since: now}
			s.nodes[c.Node] = st
		}
		st.last, st.reporters = now, c.Reporters
		if !st.member && now.Sub(st.since) >= s.cfg.EnterAfter {
			st.member, st.entered = true, now
			s.n++
			ch.Entered = append(ch.Entered, c.Node)
		}
	}
	for node, st := range s.nodes {
		if reported[node] {
			continue
		}
		if !st.member {
			delete(s.nodes, node) // the streak is broken
			continue
		}
		if now.Sub(st.last) >= s.cfg.LeaveAfter {
			delete(s.nodes, node)
			s.n--
			ch.Left = append(ch.Left, node)
		}
	}
	s.mu.Unlock()
	slices.Sort(ch.Entered)
	slices.Sort(ch.Left)
	return ch
}

// Admit makes node a member at now, without waiting for EnterAfter, as
// if reported then: it leaves after LeaveAfter unless reported or
// admitted again. The fast path (package suspect) admits the nodes it
// confirms, and admits them again while it still finds them slow. It
// reports whether node entered (was not a member).
func (s *SlowSet) Admit(now time.Time, node string) (entered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.nodes[node]
	if st == nil {
		st = &slowState{since: now}
		s.nodes[node] = st
	}
	if now.After(st.last) {
		st.last = now
	}
	if st.member {
		return false
	}
	st.member, st.entered = true, now
	s.n++
	return true
}

// Contains reports whether node is in the set.
func (s *SlowSet) Contains(node string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.nodes[node]
	return st != nil && st.member
}

// Nodes returns the members, sorted by name.
func (s *SlowSet) Nodes() []string {
	s.mu.RLock()
	out := make([]string, 0, s.n)
	for node, st := range s.nodes {
		if st.member {
			out = append(out, node)
		}
	}
	s.mu.RUnlock()
	slices.Sort(out)
	return out
}

// Len returns the number of members.
func (s *SlowSet) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.n
}

// Member is what a SlowSet knows of one of its members.
type Member struct {
	// Node is the member's name.
	Node string
	// Since is when it entered: the Update that made it a member.
	Since time.Time
	// FoundSince is when the unbroken streak of reports that made it a
	// member began: Since less at least EnterAfter.
	FoundSince time.Time
	// LastReported is the last Update that reported it with at least
	// EnterReporters, and Reporters its count there. A member is in its
	// quiet period when LastReported is before the last Update.
	LastReported time.Time
	Reporters    int
}

// Members returns the members, sorted by name.
func (s *SlowSet) Members() []Member {
	s.mu.RLock()
	out := make([]Member, 0, s.n)
	for node, st := range s.nodes {
		if st.member {
			out = append(out, Member{Node: node, Since: st.entered, FoundSince: st.since,
				LastReported: st.last, Reporters: st.reporters})
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// Remove drops every node, member or in a streak, for which drop returns
// true, and returns the members it dropped, sorted: a node an operator
// excluded or forgot leaves at once, without its quiet period, and must
// be reported for EnterAfter again to come back.
func (s *SlowSet) Remove(drop func(node string) bool) (left []string) {
	s.mu.Lock()
	for node, st := range s.nodes {
		if !drop(node) {
			continue
		}
		if st.member {
			s.n--
			left = append(left, node)
		}
		delete(s.nodes, node)
	}
	s.mu.Unlock()
	slices.Sort(left)
	return left
}
