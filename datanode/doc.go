// Package datanode is slowpeer's DataNode-side agent: it measures how long
// each downstream peer takes to acknowledge mirrored packets, keeps
// per-peer rolling averages, runs Hadoop's median/MAD outlier test over
// them and sends the outliers, as a slow-peer report, on its heartbeats to
// every NameNode-side service (HDFS-11194: DataNodePeerMetrics,
// OutlierDetector, BPServiceActor).
//
// An [Agent] is configured by a [Config] (Hadoop's key names, defaults
// from [DefaultConfig]) and runs until its context ends. Several agents
// can run in one process; each owns its goroutines and waits for them.
//
// # Where latencies come from
//
// Probe blocks (the default). Every agent serves a data port. It writes
// short blocks, packets of slowpeer.probe.packet.size bytes of random
// payload, each with a sequence number and a CRC32C, to its peers in
// coverage rounds ([Rounds]): every peer of Config.Peers once a round, in
// a new random order each round, one peer a block, paced by
// [Config.Coverage] so that it sends slowpeer.probe.packets packets every
// slowpeer.probe.interval and a round lasts at most half of
// slowpeer.probe.coverage. The data port also serves pipelines of several
// nodes: each node forwards the block to the next and acknowledges a
// packet upstream only after its downstream node acknowledged it, as
// HDFS's PacketResponder does; the next-to-last node records each
// packet's latency under the last node's id (for a block to one peer, the
// agent that wrote it). The probe protocol is described in packet.go.
//
// The fast path. Every block the agent times goes into a recent log until
// the heartbeat to every service has carried it: each heartbeat's
// recentLatencies has, per peer and round, the median of the blocks'
// medians and their count ([RecentLatencies]). A service's heartbeat reply
// may ask for probe blocks (reports.ProbeRequest): the agent writes those
// to peers it probes at once, within slowpeer.probe.confirm.budget
// ([ConfirmBudget]), ignores and counts the others, and sends the heartbeat
// that carries them as soon as they end.
//
// What is timed differs from Hadoop on purpose. Hadoop's
// BlockReceiver.receivePacket times only the write and flush of a packet
// to the downstream socket; that returns as soon as the bytes are in the
// local socket buffer, so a slow downstream node shows only once the
// buffers between the two have filled. The agent times from the start of
// the write until the downstream node's acknowledgement: the round trip
// through the network and the last node, its processing, its disk-like
// delays included. A slow node shows with the first packet. Probes keep
// one packet in flight (stop and wait) where an HDFS client keeps up to
// 80, so a latency is one packet's and not the queue ahead of it.
//
// A packet whose checksum does not match, a connection that is refused,
// reset, closed early or times out, and anything that is not the probe
// protocol fail the block: they are counted ([Stats]) and logged, and no
// latency is recorded for the failed packet or any after it. Every network
// operation has a deadline (slowpeer.probe.timeout; waiting for an
// acknowledgement from k nodes downstream, k times that), so a peer that
// hangs costs a block, never the agent. Like HDFS's DataXceiver, the data
// port forwards a block to the targets the block header names: serve it on
// the cluster's network only.
//
// Probes are judged by throughput: the floor of the agent's outlier test
// is one packet's bits at slowpeer.probe.min.rate (Config.ProbeFloor, 1.05
// ms for 64 KiB at 500 Mbit/s) instead of Hadoop's fixed 5 ms, which would
// hide a 16 KiB packet that takes 1.4 ms over a link a hundred times
// slower than its peers'. So that CPU noise does not pass the lower floor,
// a packet counts at most 3 × the median of its block (blocktimes.go),
// and the peerLatencies an agent sends with its report carry, per peer,
// the median of its latest blocks' medians (blockmedians.go).
//
// Config.FaultReceiveDelay makes an agent wait before it acknowledges each
// packet it receives, as Hadoop's DataNodeFaultInjector, to play a slow
// node in tests and demos.
//
// A Hadoop DataNode beside the agent (Config.HadoopJMX). The agent reads
// the DataNode's /jmx (asking for the DataNodeInfo bean alone when the URL
// has no qry) every slowpeer.hadoop.jmx.interval and takes the
// per-peer averages of SendPacketDownstreamAvgInfo ([HadoopJMX]). Those
// are already Hadoop's rolling averages, so they go straight to the
// outlier test, not through a second rolling window; the document carries
// no sample counts, so the min-samples rule cannot apply. Hadoop names
// peers by their HTTP info address; slowpeer.hadoop.jmx.peer.port renames
// them to the transfer port. The bare NaN that Hadoop writes for a
// non-finite gauge does not stop it. A lasting condition (peer statistics
// off on the DataNode, or a DataNode without them) is logged once when it
// begins and once when it ends.
//
// Embedded ([PeerMetrics]). A storage system written in Go calls
// AddSendPacketDownstream on its own replication path and gives its
// PeerMetrics to an agent in Config.PeerMetrics.
//
// dfs.datanode.peer.stats.enabled=false turns measurement and reporting
// off, as on a Hadoop DataNode: no probe blocks, no timing of what the
// data port relays, no reading of -hadoop-jmx, no slow-peer reports.
//
// # The HTTP port
//
// With Config.HTTPListen (dfs.datanode.http.address, -http-listen) the
// agent serves [Agent.Handler]: /jmx with the bean
// Hadoop:service=DataNode,name=DataNodeInfo whose
// SendPacketDownstreamAvgInfo is the string a Hadoop DataNode writes, so
// that another agent's -hadoop-jmx, and Hadoop's tooling, read it; /metrics
// (Prometheus text, one latency series per peer); /healthz.
//
// # Probe bandwidth
//
// An agent sends at most slowpeer.probe.packets × slowpeer.probe.packet.size
// bytes of payload every slowpeer.probe.interval, 16 × 64 KiB = 1 MiB/s by
// default, and never more than slowpeer.probe.max.bandwidth (4 MiB/s by
// default; Validate refuses a configuration above it). The coverage rounds
// keep that pace ([Config.Coverage]): a block of k packets is followed by
// the next k packets' share of the interval, and blocks a service asks for
// push the coverage back by theirs. Each block crosses one link, plus 12
// bytes of header per packet and a 5-byte acknowledgement back; a node
// therefore sends about 1 MiB/s (8.4 Mbit/s) and receives as much from
// its peers' blocks at the defaults, where random pipelines of two or three
// peers carried 2.5 times that. A data port serves at most
// MaxInboundProbes connections at once and closes the others.
//
// What that costs in CPU and wall time is measured by TestProbeCost and
// BenchmarkProbeBlock; the figures are in BENCHMARKS.md, and only there.
//
// # Heartbeats
//
// One loop per NameNode-side service, each with its own [Scheduler], as
// HDFS runs one BPServiceActor per NameNode: a heartbeat every
// dfs.heartbeat.interval, each request bounded by that interval, so a
// service that is slow or dead delays no other. The slow-peer report is
// due at start and then dfs.datanode.outliers.report.interval after it was
// delivered to that service; a report that was not delivered rides on the
// next heartbeat; a report that names a peer slow its predecessor did not
// brings the next one to one span of the rolling windows after it, an
// early second look ([Scheduler.Named]). Failed heartbeats are retried with exponential backoff
// and jitter ([Backoff]) up to slowpeer.heartbeat.max.backoff.
package datanode
