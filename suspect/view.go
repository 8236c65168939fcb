package suspect

import (
	"slices"
	"strings"
	"time"
)

// View is one suspicion as GET /v1/suspects shows it.
type View struct {
	// Target is the node, or "link:a|b".
	Target string `json:"target"`
	// Node is the suspected node; for a link its sender, and Peer its
	// receiver.
	Node string `json:"node"`
	Peer string `json:"peer,omitempty"`
	// Kind is the kind the last round found, or what the rule suspects.
	Kind  Kind  `json:"kind"`
	State State `json:"state"`
	// Since is when the suspicion opened; Decided when it was confirmed
	// or cleared (zero before).
	Since   time.Time  `json:"since"`
	Decided *time.Time `json:"decided,omitempty"`
	// Evidence is what opened it.
	Evidence Evidence `json:"evidence"`
	// Rounds is how many rounds found it far above: for a mild
	// suspicion, the looks in a row.
	Rounds int `json:"rounds"`
	// Mild is true for a suspicion of the mild rule: a node slower than
	// its own baseline, confirmed without probe requests.
	Mild bool `json:"mild,omitempty"`
	// Probes are the requests of its rounds, the last round's last.
	Probes []Probe `json:"probes"`
}

// Evidence is what opened a suspicion: the rule, how many reporters (or
// peers, for a sender) were far above, the highest latency and what was
// expected of it.
type Evidence struct {
	Rule       Kind    `json:"rule"`
	Reporters  int     `json:"reporters"`
	LatencyMs  float64 `json:"latencyMs"`
	ExpectedMs float64 `json:"expectedMs"`
}

// Suspects returns the suspicions at now, confirmed first, then by when
// they opened and by target.
func (d *Detector) Suspects(now time.Time) []View {
	d.mu.Lock()
	d.applyPending()
	out := make([]View, 0, len(d.sus))
	for _, s := range d.sus {
		v := View{Target: s.target, Node: s.node, Peer: s.peer, Kind: s.kind, State: s.state,
			Since: s.opened, Rounds: s.passed, Mild: s.mild, Probes: slices.Clone(s.past),
			Evidence: Evidence{Rule: s.found.rule, Reporters: s.found.reporters,
				LatencyMs: s.found.latencyMs, ExpectedMs: s.found.expectedMs}}
		if s.cur != nil {
			v.Probes = append(v.Probes, s.cur.probes...)
		}
		if v.Probes == nil {
			v.Probes = []Probe{}
		}
		if !s.decided.IsZero() {
			at := s.decided
			v.Decided = &at
		}
		out = append(out, v)
	}
	d.mu.Unlock()
	slices.SortFunc(out, func(a, b View) int {
		if (a.State == Confirmed) != (b.State == Confirmed) {
			if a.State == Confirmed {
				return -1
			}
			return 1
		}
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.Target, b.Target)
	})
	return out
}

// Confirmed returns the confirmed targets at now, sorted: those the
// service keeps in the slow set while their evidence holds (HoldFor).
func (d *Detector) Confirmed(now time.Time) []Verdict {
	d.mu.Lock()
	d.applyPending()
	var out []Verdict
	for _, s := range d.sus {
		if s.state == Confirmed {
			out = append(out, Verdict{Target: s.target, Kind: s.kind, Confirmed: true, Since: s.opened, At: now})
		}
	}
	d.mu.Unlock()
	slices.SortFunc(out, func(a, b Verdict) int { return strings.Compare(a.Target, b.Target) })
	return out
}
