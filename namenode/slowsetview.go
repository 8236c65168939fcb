package namenode

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/slowpeer/slowpeer/tracker"
)

// SlowSetPath serves the slow sets, what the service decided, with why
// each member is in (GET, JSON).
const SlowSetPath = "/v1/slowset"

// SlowSetEntry is one member of a slow set, with why it is in: the
// finding that counted for it at the last diagnosis that found it.
type SlowSetEntry struct {
	// Node is the member; for a link, the sender of the slower direction,
	// and Peer its receiver.
	Node string
	Peer string
	// Kind is the kind of the finding (inbound, outbound, both, rack,
	// link), or KindReports for a node counted by the slow-peer reports
	// of agents without peerLatencies; "" when the service no longer
	// knows (the finding is older than its last restart).
	Kind string
	// Rack is the rack of a rack finding.
	Rack string
	// Pairs is the evidence the finding counted with: its measured pairs,
	// plus the reporters without peerLatencies; for a member the fast
	// path admitted, the reporters of its suspicion's evidence.
	Pairs int
	// LatencyMs and MedianMs are the finding's latency and the cluster
	// median (0 for KindReports).
	LatencyMs, MedianMs float64
	// Since is when it entered the set; FoundSince when the streak of
	// findings that brought it in began; LastFound the last diagnosis
	// that found it (before the last one: it is in its quiet period,
	// and leaves after slowpeer.slow.leave.after of it).
	Since, FoundSince, LastFound time.Time
	// HTTPAddress is the agent's HTTP port (its /jmx and /metrics), for a
	// node whose heartbeats announce one.
	HTTPAddress string
	// History is a point a minute over the last HistoryPoints minutes
	// (at most MaxHistoryNodes members have one).
	History []HistoryPoint
}

// SlowSets returns the members of the slow set of nodes and of the slow
// set of links at now, most evidence first (then by name).
func (s *Server) SlowSets(now time.Time) (nodes, links []SlowSetEntry) {
	nodes = s.slowSetEntries(now, s.slowSet.Members(), false)
	links = s.slowSetEntries(now, s.slowLinks.Members(), true)
	return nodes, links
}

func (s *Server) slowSetEntries(now time.Time, members []tracker.Member, link bool) []SlowSetEntry {
	out := make([]SlowSetEntry, 0, len(members))
	for _, m := range members {
		e := SlowSetEntry{Node: m.Node, Pairs: m.Reporters, Since: m.Since, FoundSince: m.FoundSince,
			LastFound: m.LastReported, History: s.decisions.history(m.Node)}
		if link {
			e.Node, e.Peer = linkEnds(m.Node)
		}
		if r, ok := s.decisions.reason(m.Node); ok {
			e.Kind, e.Rack, e.LatencyMs, e.MedianMs = r.kind, r.rack, r.latencyMs, r.medianMs
			if e.Pairs == 0 { // admitted by the fast path: its evidence's reporters
				e.Pairs = r.pairs
			}
			if link && r.node != "" {
				e.Node, e.Peer = r.node, r.peer
			}
		}
		if d, ok := s.nodes.Get(now, e.Node); ok && !link {
			e.HTTPAddress = d.HTTPAddress
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b SlowSetEntry) int {
		return cmp.Or(cmp.Compare(b.Pairs, a.Pairs), strings.Compare(a.Node, b.Node), strings.Compare(a.Peer, b.Peer))
	})
	return out
}

// SlowSetJSON is the answer of GET /v1/slowset; clients decode it.
type SlowSetJSON struct {
	Nodes []SlowSetEntryJSON `json:"nodes"`
	Links []SlowSetEntryJSON `json:"links"`
}

// SlowSetEntryJSON is a SlowSetEntry as GET /v1/slowset writes it, times
// in milliseconds since the Unix epoch.
type SlowSetEntryJSON struct {
	Node         string             `json:"node"`
	Peer         string             `json:"peer,omitempty"`
	Kind         string             `json:"kind"`
	Rack         string             `json:"rack,omitempty"`
	Pairs        int                `json:"pairs"`
	LatencyMs    float64            `json:"latencyMs"`
	MedianMs     float64            `json:"medianMs"`
	SinceMs      int64              `json:"since"`
	FoundSinceMs int64              `json:"foundSince"`
	LastFoundMs  int64              `json:"lastFound"`
	HTTPAddress  string             `json:"httpAddress,omitempty"`
	History      []HistoryPointJSON `json:"history"`
}

// HistoryPointJSON is a HistoryPoint as GET /v1/slowset writes it.
type HistoryPointJSON struct {
	AtMs      int64   `json:"at"`
	Pairs     int     `json:"pairs"`
	LatencyMs float64 `json:"latencyMs"`
}

func toSlowSetJSON(es []SlowSetEntry) []SlowSetEntryJSON {
	out := make([]SlowSetEntryJSON, len(es))
	for i, e := range es {
		out[i] = SlowSetEntryJSON{Node: e.Node, Peer: e.Peer, Kind: e.Kind, Rack: e.Rack, Pairs: e.Pairs,
			LatencyMs: e.LatencyMs, MedianMs: e.MedianMs, SinceMs: e.Since.UnixMilli(),
			FoundSinceMs: e.FoundSince.UnixMilli(), LastFoundMs: e.LastFound.UnixMilli(),
			HTTPAddress: e.HTTPAddress, History: make([]HistoryPointJSON, len(e.History))}
		for j, p := range e.History {
			out[i].History[j] = HistoryPointJSON{AtMs: p.At.UnixMilli(), Pairs: p.Pairs, LatencyMs: p.LatencyMs}
		}
	}
	return out
}

// serveSlowSet handles GET /v1/slowset: {"nodes": [...], "links": [...]},
// each entry as SlowSetEntry says, times in milliseconds since the epoch.
func (s *Server) serveSlowSet(c *gin.Context) {
	nodes, links := s.SlowSets(s.now())
	c.JSON(http.StatusOK, SlowSetJSON{Nodes: toSlowSetJSON(nodes), Links: toSlowSetJSON(links)})
}
