// Package diagnosis tells a slow receiver, a slow sender, a slow host, a
// bad link and a slow rack apart, from the latencies every DataNode agent
// measures to the peers it sends packets to.
//
// # Why
//
// Hadoop blames only the downstream end. Each DataNode's OutlierDetector
// flags the peers it mirrors packets to whose average latency stands out,
// and the NameNode's SlowPeerTracker counts, per flagged node, who flagged
// it (HDFS-11194). A latency, though, is the time from writing a packet to
// a peer until the peer's ack: it is slow when the receiver is slow, when
// the sender is slow (its own NIC, CPU or disk delays what it measures of
// everyone), or when the link between the two is bad. Under Hadoop's rule
// a slow sender shows up as all its peers being slow, each flagged by one
// reporter, or not at all; a bad link is blamed on its receiver; a slow
// rack is N slow nodes. This package looks at the whole reporter × peer
// matrix (rows are senders, columns receivers) instead of one row at a
// time.
//
// # Model
//
// Latencies multiply: a sender twice as slow doubles every latency it
// measures. So the fit works on log latency,
//
//	log L[i][j] = μ + s[i] + r[j] + e[i][j],
//
// with μ the cluster's typical log latency, s[i] the effect of sender i,
// r[j] the effect of receiver j, and e[i][j] what is left for the pair.
// exp(μ) is the cluster median latency; exp(μ + r[j]) the typical latency
// of a sender to j; exp(μ + s[i]) that of i to a typical receiver.
//
// With a Topology the model has one more term, δ, added to the pairs
// inside one rack: traffic that stays under one switch is faster, and
// HDFS keeps much of it there (the second and third replica share a
// rack). Left out, it would make the residuals bimodal and their spread
// several times the noise (reference_test.go); with it, exp(μ) is the
// typical latency between racks, and exp(μ + δ) that inside one.
//
// # Fit
//
// Most cells are missing (a DataNode mirrors to tens or hundreds of the
// thousands of nodes), a few are wildly off (the bad links), and whole
// rows or columns are (the slow nodes). Tukey's median polish (Tukey,
// Exploratory Data Analysis, 1977, ch. 11; R's medpolish) fits that
// without a linear system: starting from the median as μ, it sweeps each
// row's median residual into s[i], moves the median of the r into μ,
// sweeps each column's median residual into r[j], moves the median of the
// s into μ, then (with a topology) the median residual of the pairs
// inside racks into δ, and repeats, over the cells present only. A row or column is
// not moved by its slow cells until half of them are slow, so a bad link
// stays in its residual and a slow node in its effect. The medians are
// weighted by √samples of each cell, the same weighted median as gonum's
// stat.Quantile(0.5, stat.Empirical, x, w) (the tests compare the two):
// a cell averaged over more packets counts more, but a busy pair cannot
// outvote the rest, since cells differ far more by their pair than by
// sampling noise once past MinSamples. The fit stops after 10 sweeps or
// when a sweep changes the sum of absolute residuals by less than 0.1 %.
// Least squares with Huber or bisquare weights, solved with gonum's mat,
// was the alternative: its normal equations couple all 2 × 10 000 effects
// through the missing cells (a dense solve is out of reach, an iterative
// one is a weighted median polish with means), and its breakdown point
// is lower. Each sweep is O(cells): weighted medians by selection
// (median.go), not sorting.
//
// # Findings
//
// With m = exp(μ), k = SlowFactor (3, Hadoop's 3 × median rule) and
// limit = max(FloorMs, k × m) (FloorMs 5, dfs.datanode.slowpeer.low.threshold.ms):
//
//   - a node measured by at least MinPairs senders is slow inbound when
//     exp(μ + r[j]) > limit; a node that measured at least MinPairs peers
//     is slow outbound when exp(μ + s[i]) > limit; both, and it is Both;
//   - a cell (i, j) between two such nodes is a bad Link when its latency
//     is above limit and its residual above max(ln k, LinkDeviations × σ):
//     k times what i and j predict, and beyond the noise. σ is the robust
//     standard deviation of the residuals (1.4826 × the median absolute
//     residual, leaving out those the fit pinned at zero: the median
//     cells of the rows and columns), or that of row i or column j where
//     it is larger by more than three of its own standard errors (1.55
//     times for 40 cells, 2.1 for 10): a noisy node strays from the fit
//     in all its pairs, which are not all bad links. A bad link is one
//     pair: a node with two or more slow cells as a sender, or two or
//     more as a receiver, has none of them as links, since a node whose
//     measurements stray (an agent starved of CPU part of the time) makes
//     a few of its cells slow by chance, and a node slow with most of its
//     peers is a slow node. The two directions of a pair make one
//     finding, named by the slower;
//   - with a Topology, a rack is one Rack finding in place of its nodes'
//     findings, and of the links across its edge, when it has at least
//     RackMinNodes judged nodes of which at least RackFraction are slow:
//     a slow node of any kind, or slow across the rack's edge (the
//     weighted median over its pairs with nodes outside the rack of
//     log L − μ − the outside end's effect puts it above limit). The
//     second test is for a rack whose uplink is slow: when much of the
//     traffic stays in the rack, as HDFS's placement of the second and
//     third replica makes it, the fast pairs inside pull the node effects
//     down, and the fit alone would see many bad links instead.
//
// Cells with fewer than MinSamples samples, or older than MaxAge, take no
// part. The fit holds while the slow nodes are a minority of every row and
// column they appear in; a node with fewer than MinPairs measured pairs in
// a direction is not judged in it, nor is any node in a direction with
// MinPairs or fewer nodes to compare (rows as senders, columns as
// receivers; a link needs both): a new cluster's matrix fills a row at a
// time, and with two rows the fit puts each half-way from the other.
//
// # Slow sets
//
// Evidence turns the findings into the counts that feed a slow set of
// nodes and one of links (tracker.SlowSet). A Link finding rests on one
// cell, which one pause of either end can spoil for one report, so
// LinkConfirmer lets a link in only once one direction is found slow in
// ConfirmReports (2) reports in a row of the node that measures it. The
// service (package namenode) and the simulator (package simulate) share
// both, so that the simulator's figures describe the product.
//
// # Cost
//
// A cell takes 24 bytes in the Matrix and up to about 80 more in the
// scratch of Diagnose, kept between calls. On the 2-core test machine
// (bench_test.go, with racks), Diagnose takes about 16 ms at 1 000 nodes
// × 50 peers, 0.22 s at 10 000 × 50 (500 000 cells) and about 1 s at
// 10 000 × 200, and allocates a few dozen objects once warm: it is
// linear in the cells, so a full matrix at the default bounds (16 384
// reporters × 256 peers) would take about 2 s. Add of a known pair takes
// about 0.2 µs and allocates nothing.
package diagnosis
