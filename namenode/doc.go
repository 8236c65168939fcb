// Package namenode is slowpeer's NameNode-side service: it ingests the
// DataNodes' heartbeats and slow-peer reports, keeps the live/dead
// DataNode table, aggregates per slow node the nodes that report it, and
// answers over HTTP.
//
// # Pieces
//
// A tracker.Tracker holds, per slow node and reporting node, the newest
// report and its arrival (Hadoop's SlowPeerTracker, with expiry and a
// deterministic order). [DataNodes] is the DataNode table: a node is dead
// after [DeadAfter] without a heartbeat, 2 × dfs.namenode.heartbeat.recheck-interval
// + 10 × dfs.heartbeat.interval (DatanodeManager.heartbeatExpireInterval).
// Both take the time as an argument and never read a clock.
//
// [Server] serves them over HTTP (with gin inside; its exported API is
// net/http only):
//
//   - POST /v1/heartbeat: at most [MaxHeartbeatBytes] (else 413), parsed
//     strictly by reports.ParseHeartbeat (exact field names, no unknown
//     field, no field twice, nothing after the object, then
//     reports.Heartbeat.Validate), and only then applied: the sender is
//     registered or refreshed, and a report (field slowPeers present, even
//     empty) replaces everything the sender said before. Any refusal is 400, 401 or 413 with {"error": "one line"}
//     and changes nothing. The answer {"slow": bool} tells the sender
//     whether its peers currently report it slow (HDFS-16320).
//   - GET /slowpeers?top=N: the top N slow nodes (default
//     dfs.datanode.max.nodes.to.report) in Hadoop trunk's SlowPeerJsonReport
//     shape.
//   - GET /jmx: Hadoop's JMXJsonServlet document with the NameNodeStatus
//     bean (SlowPeersReport as a JSON string) and FSNamesystemState
//     (NumLiveDataNodes, NumDeadDataNodes).
//   - GET /metrics: Prometheus text, every family prefixed slowpeer_.
//   - GET /v1/datanodes: the DataNode table.
//
// With Config.AuthToken set, every request that is not a GET, HEAD or
// OPTIONS needs "Authorization: Bearer <token>" (compared in constant
// time) or is answered 401 before its handler runs. Without a token the
// service is open and Serve says so once.
//
// Other packages add routes with [Server.Handle] (an http.Handler for a
// method and path pattern) and metric families with [Server.AddMetrics]
// before serving; cmd/slowpeer adds the HiveServer picker's that way. The
// routes get the same access log, recovery, token check and duration
// histogram. [Server.SlowNodes] and
// [Server.IsSlowHost] give them the slow set: the top
// dfs.namenode.max.slowpeer.collect.nodes nodes of a tracker.SlowSet, as
// Hadoop's DatanodeManager.getSlowPeersUuidSet collects slow nodes for
// block placement, but with hysteresis (slowpeer.slow.enter.after,
// slowpeer.slow.enter.reporters, slowpeer.slow.leave.after); the
// heartbeat's {"slow": true} uses the same set, /slowpeers the raw reports.
//
// # Time and goroutines
//
// [Server.Step] is the periodic work (delete expired reports, log each
// DataNode death once); [Server.RunSteps] calls it every heartbeat
// interval until its context ends. [Server.Serve] runs RunSteps and an
// HTTP server on a listener, and on cancellation lets in-flight requests
// finish within Config.ShutdownTimeout; [Server.Run] listens on
// Config.Listen and serves there. Nothing else starts a goroutine.
//
// # Metrics
//
// Each Server has its own metrics; each family writes its own # HELP and
// # TYPE lines. The families:
//
//	slowpeer_heartbeats_received_total              counter   accepted heartbeats
//	slowpeer_heartbeats_rejected_total{reason}      counter   refused heartbeats: malformed,
//	                                                          unknown_field, too_many_peers,
//	                                                          invalid, too_large, unauthorized
//	slowpeer_slow_nodes                             gauge     nodes with a valid report
//	slowpeer_slow_node_reporters{node}              gauge     reporters of each slow node; the
//	                                                          series goes when the node stops being slow
//	slowpeer_tracker_entries                        gauge     (slow node, reporter) entries held
//	slowpeer_datanodes{state="live"|"dead"}         gauge     the DataNode table
//	slowpeer_http_request_duration_seconds{method,route}
//	                                                histogram request durations (histogram_quantile works)
//
// The labels of the duration histogram are bounded, so that requests
// cannot grow the number of series: method is one of GET, HEAD, POST,
// PUT, DELETE, PATCH, OPTIONS, CONNECT, TRACE or "other", route the
// matched route pattern or "unmatched".
//
// The access log is one log/slog record per request: Info, but Debug for
// accepted heartbeats (thousands a second on a large cluster) and Error
// for 5xx answers.
package namenode
