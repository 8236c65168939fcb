// Package suspect is the fast path of detection: suspicion on every
// heartbeat, confirmation by targeted probes, after SWIM's suspicion
// (memberlist) applied to latency.
//
// # Model
//
// The evidence is what the agents measured since their last heartbeat
// (reports.RecentLatency): for a reporter r and a peer p, the latency of
// r's latest blocks towards p. The cluster's level is the lower of the
// median latency of all pairs and the median of the reporters' medians
// (a slow host is half the pairs of a 4-node cluster, a slow rack half of
// each reporter's pairs across racks: neither moves both), one for pairs
// within a rack and one for pairs across racks when a topology is known;
// the expected latency of (r → p) is the level of its rack relation. A reporter's own level is the median of its
// latencies over the cluster's (from three peers on); for the rule of a
// slow node the expected latency is multiplied by it when above 1, so
// that a slow sender does not make its peers look slow. No per-node
// effect is learned: a node slow from the very start must still stand
// out. Pairs not measured for Config.Learn are forgotten, and a reporter
// holds at most Config.MaxPeers pairs: a new one past them takes the
// place of its oldest, so that what a reporter names, made-up nodes
// included, never holds more (memory.go has the bytes of each).
//
// # Suspicion
//
// A latency at least Config.Ratio times the expected one is far above.
// At each Step the nodes that got such evidence are judged:
//
//   - a node (receiver) when at least two distinct reporters' latest
//     blocks to it are far above;
//   - a sender when its latest blocks to most (at least half, at least
//     three) of its peers are far above the cluster's level;
//   - a link (r → p) when r's blocks to p are far above while r's other
//     peers and p's other reporters are normal, with at most one far
//     above each (the first blocks of a slow sender are far above on
//     several of its peers: no link).
//
// A suspicion of a node drops those of its links not yet confirmed: their
// rounds would spend its confirmation budget.
//
// A suspicion never alerts and never moves work.
//
// # Confirmation
//
// Config.RoundGap after the suspicion, and RoundGap after each round, a
// round asks agents for Config.Blocks blocks, through the probe requests
// of their heartbeat replies. An agent probes only its own peers, so a
// round asks only for pairs the detector has seen measured (healthy
// agents that send recent latencies, other racks first):
//
//   - for a node S: witnesses W, agents that report on S, probe S and a
//     control C, another of their peers; S probes peers P of its own,
//     each also probed by another reporter R of P. W→S over W→C (the
//     same witness, at the same time: a slow witness or a cluster-wide
//     slowdown cancels) tells a slow receiver; S→P over R→P a slow
//     sender; both, a slow host;
//   - for a link A→B: A probes B and its other peers P (each also probed
//     by another reporter of P), B's other reporters probe B and their
//     controls: A→B far above A's own other blocks, while A sends
//     normally and B receives normally, is a link.
//
// A round finds its target far above when at least two, and at least
// half, of its answered comparisons are. A suspect is confirmed when
// Config.Rounds rounds, each RoundGap after the last (and the first
// RoundGap after the suspicion), all find it far above; the first round
// that does not clears it. A pause shorter than the rounds' span (a
// garbage collection of a few seconds) cannot confirm itself. A node of a
// rack three quarters of whose known nodes are suspects at once is confirmed
// as one target (rackround.go): its rounds ask a few witnesses outside it
// for blocks to several of its nodes each and to a control outside it,
// instead of a round for each node, and confirm each of its node
// suspicions of kind rack. A link is not suspected while an end is a node
// suspect. A confirmed target stays confirmed while its evidence still shows
// it slow, and HoldFor after.
//
// # Mild slowdowns
//
// A node 1.5 to 3 times slower than it was is never far above. The mild
// rule (mild.go) compares each node with its own baseline instead: every
// 15 s the median of the blocks towards it since the last look (and apart
// of its own blocks), over the cluster's level, against a slow average of
// the same; Config.MildRatio times the baseline in MildRounds looks in a
// row confirms it, without probe requests. A node slow from the start is
// the cluster's spread, not a fault, and is never confirmed by it.
//
// # Small clusters
//
// A round needs two witnesses besides the suspect, each with a control
// besides itself, a slow sender three peers and a link two third nodes:
// the fast path is built for 4 DataNodes and more (MinNodes). With 3, a
// slow receiver is still confirmed, but a slow host is most of the
// cluster's pairs, and a slow sender cannot be told from two slow links:
// neither is suspected.
//
// A Detector never reads the clock (every method takes now) and is safe
// for concurrent use.
package suspect
