package reports

// SlowNode is one entry of the NameNode's slow-peer report: a node and every
// node that currently reports it slow. Its JSON is Hadoop trunk's
// SlowPeerJsonReport, field names included.
type SlowNode struct {
	// Node is the slow node's id, "host:port".
	Node string `json:"SlowNode"`
	// Reporters lists the nodes that report Node, sorted by ReportingNode
	// as Hadoop's SortedSet orders them.
	Reporters []Reporter `json:"SlowPeerLatencyWithReportingNodes"`
}

// Reporter is what one reporting node said of a slow node, in milliseconds.
// Its JSON is Hadoop trunk's SlowPeerLatencyWithReportingNode.
type Reporter struct {
	// Node is the reporting node's id, "host:port".
	Node string `json:"ReportingNode"`
	// LatencyMs is the slow node's latency as the reporter measured it.
	LatencyMs float64 `json:"ReportedLatency"`
	// MedianMs is the median over the reporter's peers.
	MedianMs float64 `json:"MedianLatency"`
	// MADMs is the reporter's scaled median absolute deviation.
	MADMs float64 `json:"MadLatency"`
	// UpperLimitMs is the reporter's outlier limit.
	UpperLimitMs float64 `json:"UpperLimitLatency"`
}

// MaxLatencyMs returns the highest latency any reporter gave, or 0 when
// there is none.
func (s SlowNode) MaxLatencyMs() float64 {
	var m float64
	for _, r := range s.Reporters {
		m = max(m, r.LatencyMs)
	}
	return m
}
