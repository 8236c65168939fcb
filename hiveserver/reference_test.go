package hiveserver

import (
	"slices"
	"strings"
	"time"
)

// referenceServers computes, the slow and obvious way, what
// Picker.Servers must answer after events, straight from the rules: one
// row per statement, the first start and the first end win, jobName from
// the first event that has one; running = started, not ended, younger than
// the timeout; load = Σ max(mean duration of the job's finished statements
// − elapsed, min) or the default cost without history; known = static
// servers, or an event within the expiry, or running statements.
func referenceServers(cfg Config, static []string, events []Event, now time.Time, slowHosts []string) []Status {
	type row struct {
		server, job string
		pre, post   int64
	}
	rows := map[[2]string]*row{}
	var order [][2]string
	last := map[string]int64{}
	for _, e := range events {
		k := [2]string{e.Server, e.QueryID}
		r := rows[k]
		if r == nil {
			r = &row{server: e.Server}
			rows[k] = r
			order = append(order, k)
		}
		changed := false
		if e.Hook == PreExec && r.pre == 0 {
			r.pre, changed = e.TimeMs, true
		}
		if e.Hook != PreExec && r.post == 0 {
			r.post, changed = e.TimeMs, true
		}
		if r.job == "" && e.JobName != "" {
			r.job, changed = e.JobName, true
		}
		if changed && e.TimeMs > last[e.Server] {
			last[e.Server] = e.TimeMs
		}
	}
	nowMs := now.UnixMilli()
	mean := func(job string) (int64, bool) {
		var n, total int64
		for _, k := range order {
			r := rows[k]
			if r.job == job && r.pre != 0 && r.post != 0 {
				n++
				total += max(0, r.post-r.pre)
			}
		}
		if n == 0 {
			return 0, false
		}
		return max(0, total/n), true
	}
	byServer := map[string]*Status{}
	for _, s := range static {
		byServer[s] = &Status{Server: s}
	}
	for _, k := range order {
		r := rows[k]
		st := byServer[r.server]
		if st == nil {
			st = &Status{Server: r.server}
			byServer[r.server] = st
		}
		if r.pre == 0 || r.post != 0 {
			continue
		}
		elapsed := nowMs - r.pre
		if elapsed >= cfg.QueryTimeout.Milliseconds() {
			st.Lost++
			continue
		}
		st.Running++
		m, ok := mean(r.job)
		if r.job == "" || !ok {
			st.loadMs += cfg.DefaultCost.Milliseconds()
			continue
		}
		st.loadMs += max(m-max(elapsed, 0), cfg.MinRemaining.Milliseconds())
	}
	var out []Status
	for name, st := range byServer {
		recent := last[name] != 0 && nowMs-last[name] < cfg.ServerExpiry.Milliseconds()
		if !slices.Contains(static, name) && !recent && st.Running == 0 {
			continue
		}
		st.LoadSeconds = float64(st.loadMs) / 1000
		host := name[:strings.LastIndexByte(name, ':')]
		host = strings.Trim(host, "[]")
		for _, h := range slowHosts {
			st.SlowHost = st.SlowHost || strings.EqualFold(h, host)
		}
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Server, b.Server) })
	return out
}
