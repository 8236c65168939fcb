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
// net/http only; on plain HTTP a heartbeat in its plainest form is read
// by the Server's own lane, which keeps a waiting connection without a
// buffer, and every other request by net/http):
//
//   - POST /v1/heartbeat: application/json only (else 415: a web page
//     cannot post one cross-site without a preflight), at most
//     [MaxHeartbeatBytes] (else 413) as it arrives and, with
//     Content-Encoding: gzip, once inflated (another coding: 415; every
//     answer says Accept-Encoding: gzip, RFC 7694), parsed
//     strictly by reports.ParseHeartbeat (exact field names, no unknown
//     field, no field twice, nothing after the object, then
//     reports.Heartbeat.Validate), checked against the limits (else 429
//     naming the limit's key), and only then applied: the sender is
//     registered or refreshed, and a report (field slowPeers present, even
//     empty) replaces everything the sender said before. Any refusal is
//     400, 401, 413, 415 or 429 with {"error": "one line"} and changes
//     nothing. The answer {"slow": bool} tells the sender
//     whether its peers currently report it slow (HDFS-16320).
//   - GET /slowpeers?top=N: the top N slow nodes (default
//     dfs.datanode.max.nodes.to.report) in Hadoop trunk's SlowPeerJsonReport
//     shape.
//   - GET /jmx: Hadoop's JMXJsonServlet document with the beans
//     NameNodeStatus (SlowPeersReport as a JSON string, as Jackson writes
//     it; State when Config.State knows the leadership), FSNamesystemState
//     (live, dead and stale DataNodes; none decommissioning), NameNodeInfo
//     (SoftwareVersion, LiveNodes and DeadNodes, with the agents' HTTP
//     ports) and JvmMetrics (the Go runtime under Hadoop's names,
//     jmx.JvmMetrics); only true values, see
//     [Server.Beans].
//   - GET /metrics: Prometheus text, every family prefixed slowpeer_.
//   - GET /v1/datanodes[?limit=N][&after=ID]: the DataNode table, sorted
//     by id; with limit, one page, and a Link header (rel="next") to the
//     next one when more follow.
//   - GET /v1/slownodes: the diagnosis (package diagnosis) of the
//     reporter × peer matrix that the heartbeats' peerLatencies fill, each
//     report replacing its sender's row, run every [DiagnoseEvery] (less
//     often when it takes long, [DiagnoseSpacing]) by
//     [Server.Run] ([Server.Diagnose]); readers get the last
//     diagnosis ([Server.SlowNodeFindings]), never waiting for a fit, and
//     a heartbeat only hands its row over. Its findings per kind are
//     slowpeer_slow_node_findings{kind} in /metrics.
//   - GET /slowdisks[?top=N]: the top N slow disks of the DataNodes' own
//     slow-disk reports (tracker.Disks, Hadoop's SlowDiskTracker; default
//     N dfs.datanode.max.disks.to.report), as Hadoop's Jackson writes
//     SlowDisksReport; GET /v1/slowdisks: the findings of the fleet view
//     (disk.Fleet) over the volumes the heartbeats' diskLatencies measure,
//     run by [Server.Run] ([Server.DiagnoseDisks]) as the diagnosis is, each with
//     whether its disk is in the slow set of disks (disks.go).
//   - GET /v1/state: the valid reports with their arrival times and the
//     DataNode table ([Snapshot], JSON), for a replica that starts; it
//     needs the bearer token whenever one is set, GET or not.
//
// Every GET route answers HEAD too.
//
// # Limits
//
// What the service holds is bounded whatever its clients send, with or
// without a token (limits.go): the DataNodes in the table
// (Config.MaxDataNodes), the tracker's entries and slow nodes
// (MaxTrackerEntries, MaxSlowNodes), the per-node series of /metrics (the
// top MetricsSlowNodes slow nodes only), the connections served at once
// (MaxConnections, below what the process may open: over it, the one
// waiting for its client longest is closed, and other requests leave a
// quarter to heartbeats), the time to send a header and a body
// (HeaderReadTimeout, BodyReadTimeout). DataNodes silent
// for DataNodeForgetAfter leave the table. An error answer quotes input
// clipped (reports.Clip), and comes after the rest of the request body
// was read and discarded (at most 16 MiB, for at most 5 s), so that
// clients that write their whole body before reading, such as Python's
// urllib and Java's HttpURLConnection, read it instead of a reset
// connection.
//
// # Restarts
//
// A starting Server takes over what it lost before it serves:
// [Server.Restore] asks the other replicas for /v1/state, all at once,
// and imports the first answer; [Server.LoadStateFile] reads the file
// that [Server.RunStateFile] keeps, an atomically replaced JSON document;
// [Server.StartState] tries the one, then the other. Imports keep the
// arrival times the other replica saw (clocks are assumed to agree), and
// never replace a newer report or heartbeat with an older one.
//
// With Config.AuthToken set, every request that is not a GET, HEAD or
// OPTIONS needs "Authorization: Bearer <token>" (compared in constant
// time) or is answered 401 before its handler runs; with AuthReads as
// well, every request does. Serve names once, at start, the routes that
// are open ([Server.OpenEndpoints]). With Config.TLS it speaks HTTPS
// only (package certs builds a config whose certificates can be re-read
// while it serves).
//
// Other packages add routes with [Server.Handle] (an http.Handler for a
// method and path pattern) and metric families with [Server.AddMetrics]
// before serving; cmd/slowpeer adds the HiveServer picker's that way. The
// routes get the same access log, recovery, token check and duration
// histogram. [Server.SlowNodes] and
// [Server.IsSlowHost] give them the slow set: the top
// dfs.namenode.max.slowpeer.collect.nodes nodes of a tracker.SlowSet, as
// Hadoop's DatanodeManager.getSlowPeersUuidSet collects slow nodes for
// block placement, but fed by the diagnosis (diagnosis.Evidence: node and
// rack findings, and the reports of reporters that send no
// peerLatencies), with hysteresis (slowpeer.slow.enter.after,
// slowpeer.slow.enter.reporters, slowpeer.slow.leave.after) and without
// the DataNodes that are dead; the heartbeat's {"slow": true} and the
// alerts use the same set, /slowpeers the raw reports. Link findings go
// to a slow set of links that nothing avoids, once found in two reports
// in a row of the node that measures the link (diagnosis.LinkConfirmer,
// as the simulator confirms them). The fast path (suspects.go, package
// suspect; slowpeer.suspect.enabled) admits a node or link to its slow
// set at once when its rounds of probe requests, handed out in the
// heartbeat replies, confirm what the heartbeats' recentLatencies made it
// suspect (GET /v1/suspects).
//
// # Time and goroutines
//
// [Server.Step] is the periodic work (delete expired reports, forget long
// dead DataNodes, log the DataNodes that came up and died, and the
// refused requests, in a few summary lines). [Server.Run] listens on
// Config.Listen and serves there ([Server.Serve] does the same on a
// listener of the caller's): an HTTP server, Step every heartbeat
// interval, the diagnosis every [DiagnoseEvery] ([Server.Diagnose], and
// [Server.DiagnoseDisks]), the fast path every [SuspectEvery]
// ([Server.StepSuspects]); on cancellation it lets in-flight requests
// finish within Config.ShutdownTimeout and returns once everything it
// started has stopped. [Server.RunStateFile] and [Server.Restore] run only
// while called. Nothing else starts a goroutine.
//
// # Metrics
//
// Each Server has its own metrics; each family writes its own # HELP and
// # TYPE lines. The families:
//
//	slowpeer_heartbeats_received_total              counter   accepted heartbeats
//	slowpeer_heartbeats_rejected_total{reason}      counter   refused heartbeats: malformed,
//	                                                          unknown_field, too_many_peers,
//	                                                          invalid, too_large, unauthorized,
//	                                                          unsupported_type, limit_datanodes,
//	                                                          limit_tracker_entries, limit_slow_nodes,
//	                                                          too_many_disks, limit_disk_entries,
//	                                                          limit_peer_latencies,
//	                                                          limit_diagnosis_reporters
//	slowpeer_http_requests_refused_total{code}      counter   4xx answers of every route, by status
//	slowpeer_http_connections                       gauge     connections open (Serve only)
//	slowpeer_http_connections_evicted_total         counter   connections closed for room under the cap
//	slowpeer_slow_nodes                             gauge     nodes with a valid report
//	slowpeer_slow_node_reporters{node}              gauge     reporters of each of the top
//	                                                          MetricsSlowNodes slow nodes; the series
//	                                                          goes when the node leaves them
//	slowpeer_slow_set_nodes                         gauge     nodes in the slow set
//	slowpeer_slow_set_member{node}                  gauge     1 for each of the top MetricsSlowNodes
//	                                                          members of the slow set
//	slowpeer_slow_set_links                         gauge     links in the slow set of links
//	slowpeer_slow_node_findings{kind}               gauge     findings of the last diagnosis
//	slowpeer_diagnosis_reporters                    gauge     reporters holding a row of the matrix
//	slowpeer_diagnosis_rows_evicted_total           counter   rows given to a reporter live for longer
//	slowpeer_tracker_entries                        gauge     (slow node, reporter) entries held
//	slowpeer_disk_entries                           gauge     volumes held, reported slow or measured
//	slowpeer_slow_disk_reports                      gauge     disks a valid slow-disk report names
//	slowpeer_slow_disk_findings{evidence}           gauge     findings of the last fleet view
//	slowpeer_slow_set_disks                         gauge     disks in the slow set of disks
//	slowpeer_slow_set_disk_member{node,disk}        gauge     1 for each of its first MetricsSlowNodes
//	slowpeer_slow_disk_hosts                        gauge     hosts the picker avoids for their disks
//	slowpeer_suspects                               gauge     the fast path's suspicions not cleared
//	slowpeer_suspicions_opened_total                counter   suspicions opened
//	slowpeer_suspicion_verdicts_total{verdict}      counter   confirmed or cleared
//	slowpeer_suspicion_verdict_seconds              histogram suspicion to verdict
//	slowpeer_suspect_pairs                          gauge     pairs of DataNodes the fast path holds
//	slowpeer_suspect_pairs_replaced_total           counter   pairs replaced by a newer one of their
//	                                                          reporter, past MaxPeerLatencies
//	slowpeer_suspect_latencies_dropped_total        counter   recent latencies of nodes not in the table
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
// accepted heartbeats (thousands a second on a large cluster) and for 4xx
// answers (Step logs a summary of those at most every 10 s: "refused N
// requests in the last 10s: 401×…, 400×…"), and Error for 5xx answers.
package namenode
