package dashboard

import "time"

// Suspects is the fast path's part of a View: what it suspects from every
// heartbeat's latencies, and what its rounds of targeted probes confirmed
// or cleared (GET /v1/suspects).
type Suspects struct {
	// Suspects are in the order to show them: confirmed first.
	Suspects []Suspect
}

// Suspect is one suspicion of the fast path.
type Suspect struct {
	// Node is the suspect; for a link its sender, and Peer its receiver.
	Node, Peer string
	// Kind is what its rounds found it (a Kind constant), or what it is
	// suspected of; State is suspected, confirming, confirmed or cleared.
	Kind, State string
	// Rule is the rule that opened it (a Kind constant), Reporters the
	// reporters (or peers, for a sender) far above, LatencyMs the highest
	// of them and ExpectedMs what was expected.
	Rule                  string
	Reporters             int
	LatencyMs, ExpectedMs float64
	// Rounds is how many rounds found it far above; Probes how many
	// probe requests its rounds asked, Answered how many came back.
	Rounds, Probes, Answered int
	// Since is when it was suspected.
	Since time.Time
}

// MaxSuspectRows bounds the rows of the fast path's table; the count
// covers all.
const MaxSuspectRows = 50

// suspectsPage is the fast path's part of a page.
type suspectsPage struct {
	Rows []Suspect
	All  int
}

func newSuspectsPage(s *Suspects) *suspectsPage {
	if s == nil {
		return nil
	}
	return &suspectsPage{Rows: s.Suspects[:min(len(s.Suspects), MaxSuspectRows)], All: len(s.Suspects)}
}
