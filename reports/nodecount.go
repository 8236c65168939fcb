package reports

// NodeCount is an entity judged slow and its weight: for a slow node the
// number of nodes whose valid report names it (tracker.Tracker.Counts),
// for the diagnosis the measured pairs its finding rests on
// (diagnosis.Evidence). Entities are node ids ("host:port") or link ids
// ("link:a|b"). The slow sets (tracker.SlowSet) take them.
type NodeCount struct {
	// Node is the entity's id.
	Node string
	// Reporters is its weight: reporters, or measured pairs.
	Reporters int
}
