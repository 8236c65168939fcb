package main

import (
	"net/http"
	"sync"
	"time"

	"github.com/slowpeer/slowpeer/dashboard"
	"github.com/slowpeer/slowpeer/hiveserver"
	"github.com/slowpeer/slowpeer/namenode"
)

// dashboardMaxSlowNodes bounds the slow nodes the dashboard lists.
const dashboardMaxSlowNodes = 100

// dashboardMaxCells bounds the matrix cells the heatmap is chosen from.
const dashboardMaxCells = 200_000

// dashboardSource is the dashboard's Source in the service: the slow
// nodes, the diagnosis, the reporter × peer matrix of the agents'
// peerLatencies and the DataNodes of srv, the HiveServers of picker (nil:
// none), and the replicas of a registered service (cluster, nil: none;
// the page says "not available").
type dashboardSource struct {
	srv    *namenode.Server
	picker *hiveserver.Picker

	matrix  func(now time.Time) *dashboard.Matrix
	cluster func(now time.Time) *dashboard.Cluster

	// mu guards the Matrix made of the cells of the diagnosis at peerAt:
	// the same one is given again until a diagnosis gathers new cells, so
	// that the dashboard draws its heatmap once per diagnosis.
	mu     sync.Mutex
	peerAt time.Time
	peer   *dashboard.Matrix
}

// peerMatrix returns the Matrix of the agents' peerLatencies as srv last
// gathered them, nil without any.
func (s *dashboardSource) peerMatrix() *dashboard.Matrix {
	cells, at := s.srv.PeerLatencyCells(dashboardMaxCells)
	if len(cells) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peer != nil && s.peerAt.Equal(at) {
		return s.peer
	}
	m := &dashboard.Matrix{Latencies: make([]dashboard.Latency, len(cells))}
	for i, c := range cells {
		m.Latencies[i] = dashboard.Latency{Reporter: c.Reporter, Peer: c.Peer, LatencyMs: c.LatencyMs}
	}
	s.peer, s.peerAt = m, at
	return m
}

// Snapshot reads srv, picker and the optional parts at now.
func (s *dashboardSource) Snapshot(now time.Time) dashboard.View {
	var v dashboard.View
	for _, n := range s.srv.Tracker().Top(now, dashboardMaxSlowNodes) {
		v.SlowNodes = append(v.SlowNodes, dashboard.SlowNode{Node: n.Node, Reporters: n.Reporters})
	}
	nodes, links := s.srv.SlowSets(now)
	v.SlowSet = &dashboard.SlowSet{Nodes: slowSetMembers(nodes), Links: slowSetMembers(links)}
	dns := s.srv.DataNodes().List(now)
	v.DataNodes = make([]dashboard.DataNode, 0, len(dns))
	for _, d := range dns {
		// The states are the dashboard's words for namenode's.
		v.DataNodes = append(v.DataNodes, dashboard.DataNode{Node: d.Node, State: string(s.srv.StateOf(now, d)),
			LastHeartbeat: d.LastHeartbeat, HTTPAddress: d.HTTPAddress})
	}
	if s.picker != nil {
		slow := s.srv.AvoidedHosts(now)
		hs := &dashboard.HiveServers{}
		for _, st := range s.picker.Servers(now, slow) {
			hs.Servers = append(hs.Servers, dashboard.HiveServer{Server: st.Server, Running: st.Running,
				LoadSeconds: st.LoadSeconds, SlowHost: st.SlowHost})
		}
		// The pick as Ranked orders it: Pick itself breaks ties at
		// random, and counts the picks it answers.
		if ranked := s.picker.Ranked(now, slow); len(ranked) > 0 {
			hs.Pick = ranked[0]
		}
		v.HiveServers = hs
	}
	d := &dashboard.Diagnosis{}
	for _, f := range s.srv.SlowNodeFindings() {
		d.Findings = append(d.Findings, dashboard.Finding{Node: f.Node, Kind: string(f.Kind), Peer: f.Peer,
			Rack: f.Rack, Reporters: f.Reporters, LatencyMs: f.LatencyMs, MedianMs: f.MedianMs})
	}
	v.Diagnosis = d
	if s.matrix != nil {
		v.Matrix = s.matrix(now)
	} else {
		v.Matrix = s.peerMatrix()
	}
	if s.cluster != nil {
		v.Cluster = s.cluster(now)
	}
	v.Disks = dashboardDisks(s.srv, now)
	v.Suspects = dashboardSuspects(s.srv, now)
	return v
}

// dashboardSuspects is the fast path's part of the dashboard, nil when it
// is off.
func dashboardSuspects(srv *namenode.Server, now time.Time) *dashboard.Suspects {
	if !srv.Config().SuspectEnabled {
		return nil
	}
	out := &dashboard.Suspects{}
	for _, v := range srv.Suspects(now) {
		answered := 0
		for _, p := range v.Probes {
			if p.LatencyMs > 0 {
				answered++
			}
		}
		out.Suspects = append(out.Suspects, dashboard.Suspect{Node: v.Node, Peer: v.Peer, Kind: string(v.Kind),
			State: string(v.State), Rule: string(v.Evidence.Rule), Reporters: v.Evidence.Reporters,
			LatencyMs: v.Evidence.LatencyMs, ExpectedMs: v.Evidence.ExpectedMs, Rounds: v.Rounds,
			Probes: len(v.Probes), Answered: answered, Since: v.Since})
	}
	return out
}

// slowSetMembers are the dashboard's rows of a slow set.
func slowSetMembers(es []namenode.SlowSetEntry) []dashboard.SlowSetMember {
	out := make([]dashboard.SlowSetMember, len(es))
	for i, e := range es {
		out[i] = dashboard.SlowSetMember{Node: e.Node, Peer: e.Peer, Kind: e.Kind, Rack: e.Rack, Pairs: e.Pairs,
			LatencyMs: e.LatencyMs, MedianMs: e.MedianMs, Since: e.Since, LastFound: e.LastFound, HTTPAddress: e.HTTPAddress,
			History: make([]dashboard.HistoryPoint, len(e.History))}
		for j, p := range e.History {
			out[i].History[j] = dashboard.HistoryPoint{At: p.At, Pairs: p.Pairs, LatencyMs: p.LatencyMs}
		}
	}
	return out
}

// mountDashboard serves the dashboard of src on srv: GET and HEAD of
// dashboard.Path and below (the page, its events, script and style), with
// the auth of every read, and / redirecting to the page. now is the clock
// (time.Now outside tests). Run the Dashboard it returns beside srv: it
// sends the live updates and ends the event streams when it stops. Call
// it before srv serves.
func mountDashboard(srv *namenode.Server, src *dashboardSource, now func() time.Time) *dashboard.Dashboard {
	d := dashboard.New(src, dashboard.Config{Now: now, Logger: srv.Config().Logger})
	toPage := http.RedirectHandler(dashboard.Path, http.StatusFound)
	// The page, drawn from every DataNode, takes its turn among the
	// service's long reads; the event stream and the assets do not.
	page := srv.Heavy(d)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == dashboard.Path {
			page.ServeHTTP(w, r)
			return
		}
		d.ServeHTTP(w, r)
	})
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		srv.HandlePrefix(m, dashboard.Path, h)
		srv.Handle(m, "/", toPage)
	}
	return d
}
