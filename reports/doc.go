// Package reports holds the slow-peer reports that travel between slowpeer's
// daemons and to its users, and their JSON forms.
//
// A DataNode-side agent sends a [Heartbeat]; when it carries a report, the
// report is a list of [SlowPeer] values, one per downstream peer that the
// agent's outlier test found slow. The NameNode-side service answers
// /slowpeers with a list of [SlowNode] values, each with the [Reporter]
// values of the nodes that reported it, in exactly the JSON shape of Hadoop
// trunk's SlowPeerJsonReport and SlowPeerLatencyWithReportingNode, so that
// tooling written for Hadoop's NameNode reads it unchanged.
//
// The types are plain values: they carry no locks and are safe to copy.
package reports
