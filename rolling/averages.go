package rolling

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HadoopDefaultWindow is Hadoop's length of one rolling window, which it
// hard-codes: MutableRollingAverages' WINDOW_SIZE_MS_DEFAULT is 300 000 ms.
// It is not slowpeer's default (datanode.DefaultRollingWindow, 1 minute);
// the local preset (datanode.DefaultLocalConfig) uses it.
const HadoopDefaultWindow = 5 * time.Minute

// HadoopDefaultWindows is Hadoop's number of windows a key's average spans,
// which it hard-codes: MutableRollingAverages' NUM_WINDOWS_DEFAULT is 36, so
// an average covers 3 hours. It is not slowpeer's default
// (datanode.DefaultRollingWindows, 3).
const HadoopDefaultWindows = 36

// Average is one key's rolling average at the time of a snapshot.
type Average struct {
	// Key is the key the samples were recorded under (for a DataNode, the
	// peer's "host:port").
	Key string
	// Mean is Σsum / Σcount over the key's valid windows, in the unit of the
	// recorded values (milliseconds for the DataNode's peer latencies).
	Mean float64
	// Count is the number of samples in the key's valid windows.
	Count int64
}

// Averages keeps per-key rolling averages: for every key, the sum and count
// of the samples of each of the last windows windows of length window.
//
// Averages is safe for concurrent use by many goroutines. Its zero value is
// not usable; construct it with New.
type Averages struct {
	window  int64 // window length in nanoseconds, > 0
	windows int64 // number of windows, >= 1

	// keys maps a key to its *series. Lookups take no lock; each series
	// has its own mutex. A series that Snapshot found empty is marked dead
	// under its mutex and then deleted from keys; AddAt never records into
	// a dead series, it stores a new one.
	keys sync.Map
	n    atomic.Int64 // entries in keys
}

// New returns an empty Averages of windows windows of length window each.
// It panics when window is not positive or windows is less than one.
func New(window time.Duration, windows int) *Averages {
	if window <= 0 {
		panic(fmt.Sprintf("BUG: rolling.New: window must be positive, got %v", window))
	}
	if windows < 1 {
		panic(fmt.Sprintf("BUG: rolling.New: windows must be at least 1, got %d", windows))
	}
	return &Averages{window: int64(window), windows: int64(windows)}
}

// AddAt records the sample v for key at time now. It is the hot path: for a
// key already held it looks the key up without a lock, takes the key's own
// lock for a few instructions and does not allocate.
//
// A sample whose window is windows or more windows older than the newest
// window of its key is dropped, as are NaN and infinite values.
func (a *Averages) AddAt(now time.Time, key string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	w := a.windowOf(now)
	if s, ok := a.keys.Load(key); ok && s.(*series).add(w, a.windows, v) {
		return
	}
	a.addNew(w, key, v)
}

// AddBatchAt records count samples for key at time now whose values add up
// to sum, as count calls of AddAt would (up to the rounding of the sum): the
// windows keep only sums and counts. It is for callers that batch samples,
// such as the cluster simulator. A count below one, or a sum that is NaN or
// infinite, records nothing.
func (a *Averages) AddBatchAt(now time.Time, key string, sum float64, count int64) {
	if count < 1 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return
	}
	w := a.windowOf(now)
	if s, ok := a.keys.Load(key); ok && s.(*series).addBatch(w, a.windows, sum, count) {
		return
	}
	a.addNewBatch(w, key, sum, count)
}

// addNew records v in window w for a key that is not held, or whose series
// Snapshot has just marked dead.
func (a *Averages) addNew(w int64, key string, v float64) {
	a.addNewBatch(w, key, v, 1)
}

// addNewBatch records count samples summing to sum in window w for a key
// that is not held, or whose series Snapshot has just marked dead.
func (a *Averages) addNewBatch(w int64, key string, sum float64, count int64) {
	// Clone: the map must not keep alive a larger buffer that the caller's
	// key may point into.
	key = strings.Clone(key)
	for {
		// The new series holds v before it is shared, so that a concurrent
		// Snapshot never finds it empty.
		got, loaded := a.keys.LoadOrStore(key, newSeries(w, a.windows, sum, count))
		if !loaded {
			a.n.Add(1)
			return
		}
		if got.(*series).addBatch(w, a.windows, sum, count) {
			return
		}
		// A dead series that Snapshot has not deleted yet: delete it here.
		if a.keys.CompareAndDelete(key, got) {
			a.n.Add(-1)
		}
	}
}

// Snapshot returns the rolling average of every key with more than
// minSamples samples in its valid windows (strictly more, as Hadoop's
// MutableRollingAverages.getStats), sorted by key.
//
// A window is valid at now while now is less than windows × window after its
// start. Snapshot forgets the windows that are no longer valid, and deletes
// the keys left without any, so that the memory held stays bounded by the
// keys recorded in the last windows × window.
//
// Snapshot does not stop AddAt: a sample recorded while it runs may or may
// not be in its result.
func (a *Averages) Snapshot(now time.Time, minSamples int64) []Average {
	cur := a.windowOf(now)
	out := make([]Average, 0, a.Len())
	a.keys.Range(func(k, v any) bool {
		sum, count := v.(*series).total(cur, a.windows)
		if count == 0 { // total marked the series dead
			if a.keys.CompareAndDelete(k, v) {
				a.n.Add(-1)
			}
			return true
		}
		if count > minSamples {
			out = append(out, Average{Key: k.(string), Mean: sum / float64(count), Count: count})
		}
		return true
	})
	slices.SortFunc(out, func(x, y Average) int { return strings.Compare(x.Key, y.Key) })
	return out
}

// Delete forgets key and every sample recorded for it, and reports
// whether it was held. A sample AddAt records for key after Delete starts
// a new average.
func (a *Averages) Delete(key string) bool {
	v, ok := a.keys.Load(key)
	if !ok {
		return false
	}
	s := v.(*series)
	s.mu.Lock()
	s.dead = true // AddAt stores a new series from now on
	s.mu.Unlock()
	if a.keys.CompareAndDelete(key, v) {
		a.n.Add(-1)
	}
	return true
}

// Len returns the number of keys currently held, including those that a
// Snapshot would delete because all their windows have expired. While AddAt
// and Snapshot run concurrently it may lag behind them by a few keys.
func (a *Averages) Len() int {
	return int(max(0, a.n.Load()))
}

// windowOf returns the index of the window that holds now: the number of
// whole windows between the Unix epoch and now, rounded down, so that windows
// are aligned to the epoch and the same on every host.
func (a *Averages) windowOf(now time.Time) int64 {
	ns := now.UnixNano()
	q := ns / a.window
	if q*a.window > ns { // round toward -∞ before the epoch
		q--
	}
	return q
}
