// Package outlier finds the resources (peers, disks) whose latency is much
// higher than that of the others, with the median absolute deviation test
// of Hadoop's OutlierDetector (org.apache.hadoop.hdfs.server.datanode.metrics,
// HDFS-11194), which gives the same answers bit for bit.
//
// The test follows Leys, C., Ley, C., Klein, O., Bernard, P. and Licata, L.,
// "Detecting outliers: Do not use standard deviation around the mean, use
// absolute deviation around the median", Journal of Experimental Social
// Psychology 49(4), 764–766, 2013 (doi:10.1016/j.jesp.2013.03.013). The mean
// and the standard deviation are dragged along by the very outliers they
// should find; the median and the MAD are not, until half the data is bad.
//
// For n latencies x₁ … xₙ sorted as a₀ ≤ … ≤ aₙ₋₁:
//
//   - the median m is a[n/2] when n is odd, and (a[n/2] + a[n/2-1]) / 2
//     when n is even;
//   - the MAD is the median of the deviations |xᵢ − m| (by the same rule),
//     times 1.4826. The factor is 1/Φ⁻¹(3/4): for normally distributed data
//     the scaled MAD estimates the standard deviation, so m + 3 × MAD plays
//     the part of "three sigmas" (Leys et al.'s "very conservative" choice);
//   - the upper limit is the largest of three limits:
//     the low threshold (dfs.datanode.slowpeer.low.threshold.ms, 5 ms by
//     default), below which nothing is slow however far from the others;
//     3 × m, which keeps a tight cluster with a tiny MAD from flagging a
//     peer that is merely a little slower; and m + 3 × MAD, the statistical
//     test proper;
//   - xᵢ is an outlier if and only if xᵢ > upper limit (strictly).
//
// With fewer than MinResources latencies (dfs.datanode.min.outlier.detection.nodes,
// 10 by default) the test is skipped and nothing is an outlier.
//
// Hadoop sorts the latencies, then sorts the deviations: O(n log n), with
// fresh lists on every call. A [Detector] finds the same order statistics
// with less work, in scratch buffers it keeps, so that it allocates
// nothing once warm:
//
//   - up to 32 latencies it sorts once, without a branch on the data: a
//     sorting network (generated into network.go) for up to 16, one for
//     each half and a merge for more. The deviations need no second sort:
//     the k+1 smallest of them (k = n/2) are those of k+1 consecutive
//     sorted latencies, so a binary search over these windows finds the
//     MAD's order statistics;
//   - up to about 30 000 it selects (introselect: quickselect falling
//     back to a sort after too many rounds, so expected O(n) and
//     O(n log n) at worst), the first round of each selection partitioning
//     the latencies as it loads them, then the deviations as it computes
//     them;
//   - beyond that it first guesses from a sample two values that enclose
//     the median and keeps only the values between them, in one pass
//     (Floyd and Rivest, "Expected time bounds for selection", CACM 18(3),
//     1975), and selects among those.
//
// In the first two ways, latencies ≥ +0 (the normal case) are compared by
// their bit patterns, which order as the values do; a negative latency or
// a -0 sends the detection the slower way of keys that order all values
// (and an insertion sort instead of the networks). An order statistic is
// the same value whichever way it is found, and the arithmetic on it is
// Java's step by step, so every answer equals Hadoop's bit for bit; the
// tests check it against a plain sort-based copy of Hadoop's code. The one
// place a Java answer could differ is a zero median made of -0 values,
// which Java reports as -0.0: a Detector reads -0 as +0.
package outlier
