package dashboard

import (
	"fmt"
	"strings"
	"time"
)

// SlowSet is what the service decided: the members of its slow sets, the
// nodes the alerts fire on and new work avoids and the links between
// DataNodes found slow, each with why it is in.
type SlowSet struct {
	// Nodes and Links are the members, most evidence first.
	Nodes, Links []SlowSetMember
}

// SlowSetMember is one member of a slow set.
type SlowSetMember struct {
	// Node is the member; for a link, the sender of the slower direction,
	// and Peer the receiver.
	Node, Peer string
	// Kind is the kind of the finding that counts for it (a Kind
	// constant) or KindReports; "" when unknown.
	Kind string
	// Rack is the rack of a KindRack finding.
	Rack string
	// Pairs is the evidence it counted with: measured pairs, or
	// reporters.
	Pairs int
	// LatencyMs and MedianMs are its finding's latency and the cluster
	// median; 0 for KindReports.
	LatencyMs, MedianMs float64
	// Since is when it entered; LastFound the last time it was found.
	Since, LastFound time.Time
	// HTTPAddress is its agent's HTTP port, "" for none.
	HTTPAddress string
	// History is a point a minute, oldest first.
	History []HistoryPoint
}

// HistoryPoint is one minute of a member's history.
type HistoryPoint struct {
	At        time.Time
	Pairs     int
	LatencyMs float64
}

// KindReports is a member counted by the slow-peer reports of agents that
// send no measurements (Hadoop's rule).
const KindReports = "reports"

// slowSetRow is one row of the slow set table.
type slowSetRow struct {
	SlowSetMember
	// Why says in words what the finding blames.
	Why string
	// Spark draws the pairs over the history, one character a bucket, and
	// SparkText says it for a screen reader.
	Spark, SparkText string
}

// sparkBuckets is the most characters a history is drawn with.
const sparkBuckets = 36

// sparkLevels draw a bucket's pairs relative to the most of the history.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// newSlowSetRows digests members for the table.
func newSlowSetRows(members []SlowSetMember) []slowSetRow {
	out := make([]slowSetRow, len(members))
	for i, m := range members {
		out[i] = slowSetRow{SlowSetMember: m, Why: why(m)}
		out[i].Spark, out[i].SparkText = spark(m.History)
	}
	return out
}

// why says what a member's finding blames.
func why(m SlowSetMember) string {
	switch m.Kind {
	case KindInbound:
		return "inbound: a slow receiver"
	case KindOutbound:
		return "outbound: a slow sender"
	case KindBoth:
		return "both: the host is slow"
	case KindRack:
		return "rack " + m.Rack + ": the whole rack is slow"
	case KindLink:
		return "link: slow between " + m.Node + " and " + m.Peer + " only"
	case KindReports:
		return "reports of agents without measurements (Hadoop's rule)"
	case "":
		return "found before the service restarted"
	}
	return m.Kind
}

// spark draws the pairs of h in at most sparkBuckets characters (the most
// pairs of each bucket), and says what it shows.
func spark(h []HistoryPoint) (string, string) {
	if len(h) == 0 {
		return "", "no history"
	}
	per := (len(h) + sparkBuckets - 1) / sparkBuckets
	var buckets []int
	most := 0
	for i := 0; i < len(h); i += per {
		b := 0
		for _, p := range h[i:min(i+per, len(h))] {
			b = max(b, p.Pairs)
		}
		buckets = append(buckets, b)
		most = max(most, b)
	}
	var s strings.Builder
	for _, b := range buckets {
		level := 0
		if most > 0 {
			level = b * (len(sparkLevels) - 1) / most
		}
		s.WriteRune(sparkLevels[level])
	}
	span := h[len(h)-1].At.Sub(h[0].At) + time.Minute
	text := fmt.Sprintf("over the last %v: at most %d pairs, %d in the last minute", span.Round(time.Minute), most, h[len(h)-1].Pairs)
	return s.String(), text
}

// slowSetRows are the slow set's tables.
type slowSetRows struct {
	Nodes, Links []slowSetRow
}

// slowSetRowAt is a row with the time of the page, for its template.
type slowSetRowAt struct {
	Now time.Time
	M   slowSetRow
}
