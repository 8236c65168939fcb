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
// fresh lists on every call. A [Detector] finds the same two order
// statistics (the element at n/2, and the one before it for even n) by
// selection instead: introselect, a quickselect in expected O(n) time that
// falls back to a sort after too many rounds, first on the latencies and
// then on the deviations, in a scratch buffer it keeps, so that it
// allocates nothing once warm. It compares the values by integer keys that
// order as the numbers do. An order statistic is the same value whichever
// way it is found, and the arithmetic on it is Java's step by step, so
// every answer equals Hadoop's bit for bit; the tests check it against a
// plain sort-based copy of Hadoop's code. The one place a Java answer could
// differ is a zero median made of -0 values, which Java reports as -0.0: a
// Detector reads -0 as +0.
package outlier
