// Package reports is slowpeer's wire contract: the slow-peer reports that
// travel between its daemons and to its users, their JSON forms, the path
// heartbeats are sent to, and the strict parser the service reads them
// with.
//
// A DataNode-side agent POSTs a [Heartbeat] to [HeartbeatPath] of every
// service it knows; when it carries a report, the report is a list of
// [SlowPeer] values, one per downstream peer that the agent's outlier test
// found slow. The service reads the body with [ParseHeartbeat], which
// accepts exactly the heartbeat's fields, validates node ids
// ([ValidateNode]: "host:port") and latencies ([ValidateLatency]: finite,
// not negative), and rejects anything else with a [RejectError] whose
// Reason (one of the Reason constants) labels the service's rejection
// counter. The service answers /slowpeers with a list of [SlowNode]
// values, each with the [Reporter] values of the nodes that reported it,
// in exactly the JSON shape of Hadoop trunk's SlowPeerJsonReport and
// SlowPeerLatencyWithReportingNode, so that tooling written for Hadoop's
// NameNode reads it unchanged.
//
// The agent reads the service's answer to a heartbeat with
// [ParseHeartbeatAnswer]. Every endpoint of slowpeer refuses a request
// with an [ErrorBody], {"error": "one line"}, which clients read back with
// [ErrorMessage]; every label value of slowpeer's Prometheus /metrics is
// written with [QuoteLabel].
//
// The types are plain values: they carry no locks and are safe to copy.
// ParseHeartbeat is safe for concurrent use.
package reports
