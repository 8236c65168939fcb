package hiveserver

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Pick returns the eligible HiveServer at now with the least load, then
// the fewest running statements; among equals, one at random. With none
// eligible the error is a *NoneEligibleError; while the store is not ready
// (NotReady), that error.
func (p *Picker) Pick(now time.Time, slowHosts []string) (Status, error) {
	if err := p.NotReady(); err != nil {
		p.picksFailed.Add(1)
		return Status{}, err
	}
	all := p.Servers(now, slowHosts)
	best := -1
	for i := range all {
		if !all[i].SlowHost && (best < 0 || less(all[i], all[best])) {
			best = i
		}
	}
	if best < 0 {
		p.picksFailed.Add(1)
		e := &NoneEligibleError{Known: len(all)}
		for _, s := range all {
			e.SlowServers = append(e.SlowServers, s.Server)
		}
		return Status{}, e
	}
	ties := make([]int, 0, 8)
	for i := range all {
		if !all[i].SlowHost && !less(all[best], all[i]) {
			ties = append(ties, i)
		}
	}
	if len(ties) > 1 {
		n := p.randIntN(len(ties))
		if n < 0 || n >= len(ties) {
			panic(fmt.Sprintf("BUG: Config.RandIntN(%d) returned %d", len(ties), n))
		}
		best = ties[n]
	}
	p.picks.Add(1)
	return all[best], nil
}

// Ranked returns the eligible HiveServers at now, best first: least load,
// then fewest running statements, then by name. Unlike Pick it breaks ties
// by name, so a registry that publishes the best few (ZooKeeper) does not
// flip between equals at every look. While the store is not ready
// (NotReady) it returns none.
func (p *Picker) Ranked(now time.Time, slowHosts []string) []string {
	if p.NotReady() != nil {
		return nil
	}
	all := slices.DeleteFunc(p.Servers(now, slowHosts), func(s Status) bool { return s.SlowHost })
	// Servers sorts by name and the sort is stable: equals stay by name.
	slices.SortStableFunc(all, func(a, b Status) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	})
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.Server
	}
	return out
}

// less orders HiveServers for the pick: least load, then fewest running.
func less(a, b Status) bool {
	if a.loadMs != b.loadMs {
		return a.loadMs < b.loadMs
	}
	return a.Running < b.Running
}

// NoneEligibleError is Pick's error when no HiveServer may be picked.
type NoneEligibleError struct {
	// Known is how many HiveServers are known.
	Known int
	// SlowServers are the known HiveServers on slow hosts (all of them).
	SlowServers []string
}

// Error says why none is eligible.
func (e *NoneEligibleError) Error() string {
	if e.Known == 0 {
		return "no eligible HiveServer: none is known (none listed, registered or sending events)"
	}
	list := e.SlowServers
	more := ""
	if len(list) > 5 {
		list, more = list[:5], fmt.Sprintf(" and %d more", len(list)-5)
	}
	return fmt.Sprintf("no eligible HiveServer: all %d known are on slow hosts (%s%s)", e.Known, strings.Join(list, ", "), more)
}
