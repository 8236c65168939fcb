package hiveserver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Status is one HiveServer as GET /v1/hiveservers lists it.
type Status struct {
	// Server is its "host:port".
	Server string `json:"server"`
	// Running counts its statements started and not ended, younger than
	// Config.QueryTimeout.
	Running int `json:"running"`
	// LoadSeconds is the expected remaining time of its running
	// statements, summed, in seconds.
	LoadSeconds float64 `json:"load"`
	// SlowHost is true when its host is one of the slow hosts: it is not
	// eligible.
	SlowHost bool `json:"slowHost"`
	// Lost counts its statements started longer than Config.QueryTimeout
	// ago and never ended. It is for metrics, not in the JSON.
	Lost int `json:"-"`

	loadMs int64 // exact, for comparing loads
}

// Servers returns every known HiveServer at now, sorted by name, with
// SlowHost set for those whose host (reports.Host) is one of slowHosts.
// Time must not go back between calls: a statement found lost stays lost
// until its end arrives.
func (p *Picker) Servers(now time.Time, slowHosts []string) []Status {
	nowMs := now.UnixMilli()
	known := map[string]struct{}{}
	for _, src := range p.sources {
		for _, s := range src.Servers() {
			known[s] = struct{}{}
		}
	}
	out := make([]Status, 0, len(known)+8)
	aged := 0
	p.mu.RLock()
	for name, s := range p.w.servers {
		st := Status{Server: name}
		var a int
		st.Running, st.loadMs, st.Lost, a = p.costs.measure(s, nowMs)
		aged += a
		if _, ok := known[name]; ok || s.knownByEvents(nowMs, p.cfg.ServerExpiry, st.Running) {
			out = append(out, st)
			delete(known, name)
		}
	}
	p.mu.RUnlock()
	for name := range known {
		out = append(out, Status{Server: name})
	}
	for i := range out {
		out[i].LoadSeconds = float64(out[i].loadMs) / 1000
		out[i].SlowHost = onSlowHost(out[i].Server, slowHosts)
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Server, b.Server) })
	if aged > 0 {
		p.expire(now)
	}
	return out
}

func onSlowHost(server string, slowHosts []string) bool {
	if len(slowHosts) == 0 {
		return false
	}
	host := reports.Host(server)
	for _, h := range slowHosts {
		if strings.EqualFold(host, h) {
			return true
		}
	}
	return false
}

// Pick returns the eligible HiveServer at now with the least load, then
// the fewest running statements; among equals, one at random. With none
// eligible the error is a *NoneEligibleError.
func (p *Picker) Pick(now time.Time, slowHosts []string) (Status, error) {
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
// flip between equals at every look.
func (p *Picker) Ranked(now time.Time, slowHosts []string) []string {
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
