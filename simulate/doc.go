// Package simulate runs a DataNode cluster in synthetic time whose
// packets are simulated but whose detection is slowpeer's real code, and
// beside it Hadoop's algorithm at Hadoop's defaults on the same packets,
// so that its figures describe the product, not a model of it.
//
// # What is real
//
// Each node has, for each algorithm, a real datanode.PeerMetrics (the
// rolling windows of package rolling and the median/MAD test of package
// outlier) and a real datanode.Scheduler that says which heartbeat
// carries the slow-peer report (for slowpeer with the agent's early second
// look at a newly named slow peer, Scheduler.Named). The reports go, in the order they
// arrive, to a real tracker.Tracker; slowpeer's also carry the peer
// latencies the agent sends (Detection.PeerLatencies: for each peer the
// median of its block medians of the rolling windows' span, from
// PeerMetrics.AddBlockMedianAt) to a real diagnosis.Matrix with the rack
// topology. Once a minute each service is read: Hadoop's slow nodes are
// the tracker's (any valid report: no hysteresis); slowpeer's nodes go
// through tracker.SlowSet, fed by the diagnosis (diagnosis.Evidence,
// service.go), and its links through a second SlowSet once a direction is found slow in two
// reports in a row of the node that measures it (diagnosis.LinkConfirmer,
// as the service confirms them).
//
// # What is simulated
//
// The packets. Every node starts, on average, one block of ProbePackets
// packets every ProbeInterval as a writer, to one of its RemotePeers in
// other racks (HDFS puts the second replica off the writer's rack), and
// relays as many to a rack-mate (the third replica, in the second's
// rack); each hop is timed by its sender, as Hadoop's BlockReceiver times
// its mirror. The number of blocks per tick is Poisson; a block's time is
// a random instant in the tick. A packet takes the link's base latency
// (the cluster's, each end's own factor, log-normal σ 0.15, 0.7 inside a
// rack, a per-link factor, log-normal σ 0.1), times a daily load swing of
// ±25 %, times the fault's factor, times log-normal noise (σ
// JitterSigma, mean 1); the sum of a block's packets is drawn as one
// log-normal of the same mean and variance (Fenton–Wilkinson), not packet
// by packet. Some hosts pause (Pareto durations, heavy-tailed): a block
// that meets a pause on either end waits for it to end, every packet of
// it. A block's median packet is taken as its mean packet (its packets
// are one draw), recorded per block. The blocks of one (sender, peer)
// pair reach PeerMetrics' averages in
// batches (AddSendPacketsDownstreamAt, a sum and a count), held per
// rolling window and handed over when the window changes or a report is
// due, so a tick must divide the rolling windows; a heartbeat in a tick
// sees the packets of the ticks before it. Heartbeats are never lost.
//
// The services are read once a minute (Config.ReadInterval) from half an
// hour before the fault on; the fault starts after Config.Warmup.
//
// # Incidents
//
// A scenario's fault is one incident from the end of the warmup to the
// end of the run, or, with Config.Incidents, that many: incident k starts
// at Warmup + k × Every on nodes (a link, a rack) no earlier one used and
// lasts Lasting (a flapping node is slow in the first half of each half
// of it; a mild-slow node 1.5 to 3 times, drawn per incident). Each
// entity of an incident is one case, scored from the slow set's entries
// (incidentscore.go): detected or not, the time from the incident's start
// to its entry, its kind in the slow set against the incident's, false
// positives (entries of entities not at fault then), flaps during it.
//
// # The fast path
//
// With Config.FastPath the agents probe as the agent does with its fast
// path: one single-peer block every Coverage.Every to the next peer of
// their coverage rounds (datanode.Config.Coverage, datanode.Rounds),
// instead of random pipelines, and every heartbeat carries the blocks
// done since the one before (datanode.RecentLatencies) to the service's
// suspect.Detector. Its probe requests are answered as the agent answers
// them (peers it probes, within datanode.ConfirmBudget, ProbePackets
// packets a block, one after another, then an early heartbeat), and it
// steps every 500 ms (FastStep); the targets it confirms are admitted to
// the slow sets (tracker.SlowSet.Admit) beside the diagnosis's evidence.
// The events of the fast path (heartbeats at their times, early ones,
// steps) are taken one at a time in the order of their time, within
// the tick whose blocks are drawn; the reports, rolling averages and
// diagnosis stay on the tick (30 s), so slowpeer without its fast path,
// scored beside it on the same packets, is today's path.
//
// # Disks
//
// The disk scenarios (slow-disk, slow-controller, busy-disk) simulate the
// volumes of the same cluster and not its network; healthy simulates
// both, and adds their figures. Each node has 12, 6 or 4 volumes, of
// HDDs or (one node in ten) SSDs. A device takes a positioning time plus
// the transfer of each operation's bytes, and its latency is that service
// time swollen by its queue, 1/(1 − ρ) at utilization ρ. slowpeer's agent
// sees the kernel's counters (operations, bytes, response times, busy
// time) and its probes through a real disk.Recorder, and reports every
// report interval to a real tracker.Disks, whose volumes the real
// disk.Fleet judges, feeding a real SlowSet as the service does
// (namenode.Server.DiagnoseDisks). Hadoop's DataNode sees its own timed
// I/O of the last metrics period, runs Hadoop's test (disk.Detector) and
// reports every 30 minutes to a tracker.Disks; a disk is slow while a
// valid report names it. The entities scored are disks, "node:volume"
// (reports.SlowDiskID). A fault is SlowFactor times the service time of
// an HDD volume: a tenfold SSD stays under the 20 ms low threshold, which
// both algorithms share. disksim.go and diskmodel.go have the figures.
//
// # Determinism
//
// Each node draws from its own stream, seeded by the seed and its index;
// the reports of a tick reach the services in (time, node) order, and
// the fast path's events one at a time in (time, node) order; the
// detector goes through its nodes in the order they came, never in a
// map's. The Result of a Config is the same whatever Workers is, with
// the fast path or without.
package simulate
