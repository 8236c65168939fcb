// Package rolling keeps per-key rolling averages: for every key (on a
// DataNode, a downstream peer), the sum and count of the samples recorded in
// each of the last windows windows of length window. It follows Hadoop's
// MutableRollingAverages, which DataNodePeerMetrics uses to average the time
// a DataNode takes to mirror a packet to each peer, with two deliberate
// departures described below.
//
// # Meaning
//
// Time is cut into windows of length window aligned to the Unix epoch: the
// window of a time t has the index ⌊t.UnixNano() / window⌋, so with the
// default 5 minutes every window starts at hh:00, hh:05, … UTC, the same on
// every host. At Snapshot(now, minSamples) a window is valid while
//
//	now − (start of the window) < windows × window
//
// that is, the window holding now and the windows − 1 windows before it. A
// key's average is Σsum / Σcount over its valid windows, and a key takes part
// only with more than minSamples samples in them (strictly more, as
// MutableRollingAverages.getStats: totalCount > minSamples; the DataNode
// passes dfs.datanode.peer.metrics.min.outlier.detection.samples, 1000 by
// default). Expiry is per window: a sample recorded at the start of its
// window counts until windows × window later, one recorded at its last
// instant until (windows − 1) × window later and one nanosecond.
//
// Hadoop cuts time differently, with the same span: a scheduler "rolls" every
// 5 minutes from the moment the metric was created, appending each key's
// (sum, count, snapshot time) of the elapsed period to a deque of 36, and
// getStats counts the entries whose snapshot time is younger than 36 × 5
// minutes. Hadoop thus counts the 36 last completed periods and does not see
// the current one until it rolls; here the current window counts as it
// fills, with the 35 completed ones before it. Hadoop also records whole
// milliseconds (a long) and rounds each thread's sum per period
// (MutableRatesWithAggregation's snapshotInto: Math.round(stat.total()));
// here values are float64 and sums are not rounded.
//
// # Departure 1: an idle key does not re-count its last window
//
// In Hadoop, every roll appends an entry for every key ever seen, taken from
// the key's MutableRate after MutableStat.snapshot: for a key that recorded
// nothing during the period, changed() is false, so lastStat() is still
// prevStat — the previous active period's sum and count — and
// getSnapshotTimeStamp() is still that period's snapshot time. rollOverAvgs
// therefore appends the last active period again, with its old time stamp.
// After k idle periods the deque holds k + 1 copies of it, and getStats
// counts all of them until the original time stamp is 36 × 5 minutes old. So an idle peer's
// mean drifts toward its last active period, and its count grows: a peer
// seen 30 times in its only active period counts 30 × 34 = 1 020 > 1 000
// samples after 33 idle periods, and becomes eligible for outlier detection
// without ever having sent 1 000 packets. Here a window is counted once,
// whatever follows it.
//
// # Departure 2: keys without a valid window are deleted
//
// Hadoop never forgets a key: MutableRatesWithAggregation's global metrics
// and MutableRollingAverages' deques keep an entry for every peer ever seen,
// and getStats merely skips the expired entries. Here Snapshot forgets the
// windows that are no longer valid and deletes the keys left without any, so
// the memory held stays bounded by the keys recorded in the last
// windows × window (as long as someone calls Snapshot, as the DataNode agent
// does at every report).
//
// # Edge rules
//
//   - A sample whose window is windows or more windows older than the newest
//     window of its key is dropped by AddAt: the key's ring has no room for
//     it, and it is expired at any time at or after that newest sample.
//   - A window that starts after now (the clock stepped back between AddAt
//     and Snapshot) counts as young, and so as valid.
//   - NaN and infinite values are dropped; they would poison a mean for three
//     hours.
//   - Times are read with time.Time.UnixNano, defined for the years 1678 to
//     2262.
//
// # Concurrency
//
// The hot path is AddAt for a key already held: one per packet on a busy
// DataNode, from many goroutines (one per write pipeline). Keys live in a
// sync.Map, whose Load takes no lock; each key's series carries its own
// mutex, held for a few instructions, in a header padded to 128 bytes so
// that two keys' locks never share a cache line (nor the adjacent line CPUs
// fetch in pairs).
// No lock or counter is shared by all keys, so goroutines recording different
// keys run in parallel and throughput grows with CPUs
// (BenchmarkAddAtParallel). Goroutines recording the same key serialize on
// its mutex and pass its cache lines between CPUs
// (BenchmarkAddAtParallelShared); only per-CPU copies, as Hadoop's
// thread-local SampleStats, would avoid that, at the price of merging them on
// every read. Sharding the keys over a few mutex-protected maps, the other
// usual design, puts many keys behind each lock, so that lock's cache line
// moves between CPUs even when goroutines record different keys; per-key
// locks touch only the key's own lines.
//
// A new key is stored with LoadOrStore. Snapshot marks a key's series dead
// under the series' mutex when no window is left, then deletes it with
// CompareAndDelete; an AddAt that finds a dead series stores a fresh one, so a
// sample recorded while its key is being deleted is never lost.
//
// The package is a pure core: it never reads the clock (every call takes
// now) and starts no goroutines.
package rolling
