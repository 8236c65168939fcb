package suspect

import "time"

// Kind is the kind of a confirmed target: the same strings as
// diagnosis.Kind.
type Kind string

// The kinds.
const (
	Inbound  Kind = "inbound"  // a slow receiver
	Outbound Kind = "outbound" // a slow sender
	Both     Kind = "both"     // a slow host: both directions
	Link     Kind = "link"     // one pair only
	Rack     Kind = "rack"     // every known node of a rack
)

// State is where a suspicion stands.
type State string

// The states of a suspicion.
const (
	Suspected  State = "suspected"  // opened, waiting for its first round
	Confirming State = "confirming" // a round asked or passed, more to come
	Confirmed  State = "confirmed"  // every round found it far above
	Cleared    State = "cleared"    // a round did not
)

// Verdict is the end of a suspicion, as Step returns it.
type Verdict struct {
	// Target is a node id, or "link:a|b" (ends sorted) as the slow set
	// of links names links.
	Target string
	// Kind is the confirmed kind; for a cleared suspicion, what it was
	// suspected of.
	Kind Kind
	// Confirmed is true for a confirmation, false when cleared.
	Confirmed bool
	// Since is when the suspicion opened, At when it was decided.
	Since, At time.Time
}

// linkEntity names the link between a and b, ends sorted, as
// diagnosis.LinkEntity does.
func linkEntity(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "link:" + a + "|" + b
}
