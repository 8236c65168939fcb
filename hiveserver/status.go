package hiveserver

import (
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
