package namenode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/reports"
	"github.com/slowpeer/slowpeer/suspect"
)

// The fast path (package suspect): every heartbeat's recentLatencies go
// to a suspect.Detector after the heartbeat is applied, and its reply
// carries the probe requests the detector has for the sender;
// Serve steps the detector every SuspectEvery. A confirmed node
// enters the slow set at once (tracker.SlowSet.Admit), a confirmed link
// the slow set of links, each logged by the decisions log with reason
// "fast path"; while the detector still finds them slow they are
// admitted again at every step, so that they do not leave while slow.
// The diagnosis stays the second line, and the one for mild slowdowns.
// Excluded and dead nodes are never suspects.

// SuspectsPath serves the fast path's suspicions (GET, JSON).
const SuspectsPath = "/v1/suspects"

// SuspectEvery is how often Serve steps the fast path.
const SuspectEvery = 500 * time.Millisecond

// The fast path's families.
const (
	suspectsFamily        = "slowpeer_suspects"
	suspectPairsFamily    = "slowpeer_suspect_pairs"
	pairsReplacedFamily   = "slowpeer_suspect_pairs_replaced_total"
	recentDroppedFamily   = "slowpeer_suspect_latencies_dropped_total"
	suspicionsOpenedFam   = "slowpeer_suspicions_opened_total"
	suspicionVerdictsFam  = "slowpeer_suspicion_verdicts_total"
	suspicionSecondsFam   = "slowpeer_suspicion_verdict_seconds"
	verdictConfirmed      = "confirmed"
	verdictCleared        = "cleared"
	clusterSizeCheckEvery = 30 * time.Second
)

// verdictBuckets span a confirmation in two rounds (about 10 s) to a
// round that timed out.
var verdictBuckets = []float64{2, 5, 10, 15, 20, 30, 45, 60, 120, 300}

// fastPath is the Server's part of the fast path; det is nil when
// slowpeer.suspect.enabled is false. Safe for concurrent use.
type fastPath struct {
	det                *suspect.Detector
	confirmed, cleared metrics.Counter
	// dropped counts the recent latencies of nodes the DataNode table
	// does not list; the first is logged (droppedSaid), and the first
	// pair replaced past slowpeer.max.peer.latencies (replacedSaid).
	dropped                   metrics.Counter
	droppedSaid, replacedSaid atomic.Bool
	seconds                   *metrics.Set // the one histogram below
	hist                      *metrics.PrometheusHistogram

	// stepMu serialises steps; it guards the fields below.
	stepMu    sync.Mutex
	sizeAt    time.Time
	sizeClass int // what the last cluster-size line said
}

// newFastPath sets up the fast path of a new Server.
func (s *Server) newFastPath() {
	s.fast = &fastPath{seconds: metrics.NewSet()}
	s.fast.hist = s.fast.seconds.NewPrometheusHistogramExt(suspicionSecondsFam, verdictBuckets)
	if !s.cfg.SuspectEnabled {
		return
	}
	cfg := s.cfg.Suspect
	cfg.MaxPeers = s.cfg.MaxPeerLatencies // what the service keeps of a reporter
	if s.cfg.Topology.Len() > 0 {
		cfg.Rack = s.cfg.Topology.Rack
	}
	s.fast.det = suspect.New(cfg)
}

// judged reports whether node may be a suspect, witness or control at
// now: a live DataNode, not excluded.
func (s *Server) judged(now time.Time) func(node string) bool {
	return func(node string) bool {
		st, ok := s.nodes.State(now, node)
		return ok && st == Live && !s.Excluded(node)
	}
}

// observeRecent hands a heartbeat's recentLatencies to the fast path,
// and returns the reply to send: reply, or one with the probe requests
// the fast path has for the sender.
func (s *Server) observeRecent(now time.Time, hb reports.Heartbeat, slow bool) []byte {
	det := s.fast.det
	if det == nil {
		return plainReply(slow)
	}
	det.Observe(now, hb.Node, s.ofDataNodes(hb))
	reqs := det.Requests(now, hb.Node)
	if len(reqs) == 0 {
		return plainReply(slow)
	}
	b, err := json.Marshal(reports.HeartbeatReply{Slow: slow, Probe: reqs})
	if err != nil {
		panic("BUG: namenode: encode a heartbeat reply: " + err.Error())
	}
	return b
}

// ofDataNodes returns hb's recentLatencies of the nodes the DataNode
// table lists (live or dead): hb's own, unless some name another node,
// which are dropped, counted, and the first logged. So the fast path's
// model holds pairs of DataNodes only: at most
// slowpeer.namenode.max.datanodes nodes, and as many reporters with at
// most slowpeer.max.peer.latencies pairs each (MemoryBudget).
func (s *Server) ofDataNodes(hb reports.Heartbeat) []reports.RecentLatency {
	rs := hb.RecentLatencies
	unknown := s.nodes.Unknown(func(yield func(string) bool) {
		for _, r := range rs {
			if !yield(r.Node) {
				return
			}
		}
	})
	if unknown == nil {
		return rs
	}
	out := slices.DeleteFunc(slices.Clone(rs), func(r reports.RecentLatency) bool { return slices.Contains(unknown, r.Node) })
	s.fast.dropped.Add(len(rs) - len(out))
	if !s.fast.droppedSaid.Swap(true) {
		s.log.Warn("fast path: recent latencies of nodes that are not DataNodes of the table are dropped; "+
			"counted in "+recentDroppedFamily, slog.String("reporter", hb.Node), slog.String("node", reports.Clip(unknown[0])))
	}
	return out
}

func plainReply(slow bool) []byte {
	if slow {
		return replySlow
	}
	return replyNotSlow
}

// StepSuspects is the fast path's periodic work at now: it steps the
// detector, admits what it confirmed to the slow sets (and again what it
// still finds slow), counts the verdicts and returns them. Nothing when
// the fast path is off, nor on a standby replica: the agents heartbeat
// to every replica, and only the leader asks them for probes (a standby
// keeps observing, and takes over with the model the heartbeats built).
// Serve calls it every SuspectEvery.
func (s *Server) StepSuspects(now time.Time) []suspect.Verdict {
	f := s.fast
	if f.det == nil || s.State() == "standby" {
		return nil
	}
	f.stepMu.Lock()
	defer f.stepMu.Unlock()
	s.logClusterSize(now)
	vs := f.det.Step(now, s.judged(now))
	if _, replaced := f.det.Pairs(); replaced > 0 && !f.replacedSaid.Swap(true) {
		s.log.Warn(fmt.Sprintf("fast path: a reporter named more peers than %s (%d): each keeps its latest %d pairs; counted in %s",
			MaxPeerLatenciesKey, s.cfg.MaxPeerLatencies, s.cfg.MaxPeerLatencies, pairsReplacedFamily))
	}
	fresh := map[string]bool{}
	for _, v := range vs {
		f.hist.Update(v.At.Sub(v.Since).Seconds())
		if !v.Confirmed {
			f.cleared.Inc()
			continue
		}
		f.confirmed.Inc()
		fresh[v.Target] = true
	}
	held := f.det.Confirmed(now)
	if len(held) == 0 {
		return vs
	}
	d := s.diag
	d.stepMu.Lock() // as a diagnosis feeds the slow sets
	defer d.stepMu.Unlock()
	var views map[string]suspect.View // read when needed
	for _, v := range held {
		set, sset := setNodes, s.slowSet
		if isLink(v.Target) {
			set, sset = setLinks, s.slowLinks
		}
		entered := sset.Admit(now, v.Target)
		if !entered && !fresh[v.Target] && s.decisions.kindIs(v.Target, string(v.Kind)) {
			continue
		}
		if views == nil {
			views = map[string]suspect.View{}
			for _, w := range f.det.Suspects(now) {
				views[w.Target] = w
			}
		}
		w := views[v.Target]
		r := reason{kind: string(v.Kind), fast: true, rounds: w.Rounds, pairs: w.Evidence.Reporters,
			latencyMs: w.Evidence.LatencyMs, medianMs: w.Evidence.ExpectedMs}
		if set == setLinks {
			r.node, r.peer = w.Node, w.Peer
		}
		if v.Kind == suspect.Rack {
			r.rack = s.cfg.Topology.Rack(v.Target)
		}
		s.decisions.admit(now, set, v.Target, r, entered)
	}
	return vs
}

// runSuspects calls StepSuspects every SuspectEvery, as heavy work (it
// applies the evidence of half a second of heartbeats: 20 ms at 10 000
// agents), until ctx is done, then returns nil. Serve runs it; call it
// yourself only when you serve Handler with a server of your own.
func (s *Server) runSuspects(ctx context.Context) error {
	if s.fast.det == nil {
		return nil
	}
	every(ctx, SuspectEvery, func() { s.heavy.do(ctx, func() { s.StepSuspects(s.now()) }) })
	return nil
}

// logClusterSize says, when it changes, what the fast path can tell
// with the live DataNodes there are. The caller holds f.stepMu.
func (s *Server) logClusterSize(now time.Time) {
	f := s.fast
	if now.Sub(f.sizeAt) < clusterSizeCheckEvery {
		return
	}
	f.sizeAt = now
	live, _ := s.nodes.Counts(now)
	class := min(live, suspect.MinNodes)
	if class == f.sizeClass || live == 0 {
		return
	}
	f.sizeClass = class
	switch {
	case live < 3:
		s.log.Warn(fmt.Sprintf("fast path: %d live DataNodes: it confirms nothing below 3 (a slow receiver from 3, every kind from %d)", live, suspect.MinNodes))
	case live < suspect.MinNodes:
		s.log.Warn(fmt.Sprintf("fast path: %d live DataNodes: it confirms a slow receiver only; a slow sender, host or link needs %d", live, suspect.MinNodes))
	default:
		s.log.Info("fast path: every kind can be confirmed", slog.Int("datanodes", live))
	}
}

// forgetSuspects drops the fast path's pairs of nodes the DataNode table
// forgot.
func (s *Server) forgetSuspects(nodes []string) {
	if s.fast.det == nil {
		return
	}
	for _, n := range nodes {
		s.fast.det.Forget(n)
	}
}

// Suspects returns the fast path's suspicions at now (GET /v1/suspects),
// confirmed first; none when it is off.
func (s *Server) Suspects(now time.Time) []suspect.View {
	if s.fast.det == nil {
		return []suspect.View{}
	}
	return s.fast.det.Suspects(now)
}

// serveSuspects handles GET /v1/suspects.
func (s *Server) serveSuspects(c *gin.Context) {
	c.JSON(http.StatusOK, s.Suspects(s.now()))
}

// writeSuspectMetrics writes the fast path's families.
func (s *Server) writeSuspectMetrics(w io.Writer) {
	f := s.fast
	open, opened, pairs, replaced := 0, int64(0), 0, int64(0)
	if f.det != nil {
		for _, v := range f.det.Suspects(s.now()) {
			if v.State != suspect.Cleared {
				open++
			}
		}
		opened = f.det.Opened()
		pairs, replaced = f.det.Pairs()
	}
	writeFamily(w, suspectsFamily, "gauge",
		"Suspicions of the fast path not cleared: suspected, confirming or confirmed (GET /v1/suspects).", open)
	writeFamily(w, suspicionsOpenedFam, "counter", "Suspicions the fast path opened.", opened)
	writeFamilyHeader(w, suspicionVerdictsFam, "counter",
		"Verdicts of the fast path's confirmation rounds: confirmed (into the slow set at once) or cleared.")
	fmt.Fprintf(w, "%s{verdict=%s} %d\n%s{verdict=%s} %d\n", suspicionVerdictsFam, reports.QuoteLabel(verdictConfirmed), f.confirmed.Get(),
		suspicionVerdictsFam, reports.QuoteLabel(verdictCleared), f.cleared.Get())
	writeFamilyHeader(w, suspicionSecondsFam, "histogram", "Time from a suspicion to its verdict.")
	f.seconds.WritePrometheus(w)
	writeFamily(w, suspectPairsFamily, "gauge",
		"(reporter, peer) pairs of DataNodes the fast path's model holds: at most slowpeer.max.peer.latencies a reporter.", pairs)
	writeFamily(w, pairsReplacedFamily, "counter",
		"Pairs of the fast path that a newer pair of their reporter replaced, past slowpeer.max.peer.latencies pairs.", replaced)
	writeFamily(w, recentDroppedFamily, "counter",
		"Recent latencies dropped by the fast path: they named a node that is not a DataNode of the table.", f.dropped.Get())
}
