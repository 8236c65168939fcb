package rolling

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// reference is the naive model of Averages: a plain list of samples,
// filtered by age. It shares no code with the ring of windows it checks.
type reference struct {
	window  int64 // ns
	windows int64
	samples []refSample
	// newest is, per key held, the start of the newest window a sample was
	// accepted in since the key appeared; a key leaves when a Snapshot finds
	// none of its samples alive.
	newest map[string]int64
}

type refSample struct {
	start int64 // start of the sample's window, ns since the epoch
	key   string
	v     float64
}

// windowStart returns the start of the window holding ns: the largest
// multiple of window at or below ns.
func (r *reference) windowStart(ns int64) int64 {
	m := ns % r.window
	if m < 0 {
		m += r.window
	}
	return ns - m
}

// young reports whether a window that starts at start is younger than
// windows × window at the instant at.
func (r *reference) young(start, at int64) bool {
	return at-start < r.windows*r.window
}

func (r *reference) add(now time.Time, key string, v float64) {
	start := r.windowStart(now.UnixNano())
	newest, held := r.newest[key]
	if held && !r.young(start, newest) {
		return // too old next to the key's newest window
	}
	if !held || start > newest {
		r.newest[key] = start
	}
	r.samples = append(r.samples, refSample{start: start, key: key, v: v})
}

// alive reports whether s still counts at now: its window is young both at
// now and at the start of its key's newest window.
func (r *reference) alive(s refSample, now int64) bool {
	return r.young(s.start, now) && r.young(s.start, r.newest[s.key])
}

func (r *reference) snapshot(now time.Time, minSamples int64) []Average {
	at := now.UnixNano()
	kept := r.samples[:0]
	sums := map[string]float64{}
	counts := map[string]int64{}
	for _, s := range r.samples {
		if r.alive(s, at) {
			kept = append(kept, s)
			sums[s.key] += s.v
			counts[s.key]++
		}
	}
	r.samples = kept
	for key := range r.newest {
		if counts[key] == 0 {
			delete(r.newest, key)
		}
	}
	var out []Average
	for key, n := range counts {
		if n > minSamples {
			out = append(out, Average{Key: key, Mean: sums[key] / float64(n), Count: n})
		}
	}
	slices.SortFunc(out, func(x, y Average) int { return strings.Compare(x.Key, y.Key) })
	return out
}

// TestAgainstReference runs random sequences of AddAt and Snapshot, with a
// clock that mostly moves forward, sometimes jumps far and sometimes steps
// back, and compares every Snapshot and Len with the naive reference.
// Values are small integers, so that sums are exact in any order and means
// compare exactly.
func TestAgainstReference(t *testing.T) {
	sequences, ops := 3000, 200
	if testing.Short() || raceEnabled {
		sequences /= 10
	}
	windowLens := []time.Duration{time.Nanosecond, 7 * time.Nanosecond, time.Second, HadoopDefaultWindow}
	windowCounts := []int{1, 2, 3, 5, HadoopDefaultWindows}
	keys := []string{"a", "b", "c", "10.0.0.5:9866", "10.0.0.6:9866"}
	for seq := range sequences {
		rng := rand.New(rand.NewPCG(uint64(seq), 0x5eed))
		window := windowLens[rng.IntN(len(windowLens))]
		windows := windowCounts[rng.IntN(len(windowCounts))]
		a := New(window, windows)
		ref := &reference{window: int64(window), windows: int64(windows), newest: map[string]int64{}}
		// Start anywhere from 1900 to 2150, on or off a window boundary.
		now := time.Unix(0, rng.Int64N(250*365*24*int64(time.Hour))-70*365*24*int64(time.Hour))
		var log []string
		for op := range ops {
			switch p := rng.IntN(100); {
			case p < 55: // a little forward, within a window or two
				now = now.Add(time.Duration(rng.Int64N(2 * int64(window))))
			case p < 60: // far forward, across many windows
				now = now.Add(time.Duration(rng.Int64N(int64(windows)+3) * int64(window)))
			case p < 63: // back
				now = now.Add(-time.Duration(rng.Int64N(int64(windows)+3) * int64(window)))
			}
			if rng.IntN(5) > 0 {
				key, v := keys[rng.IntN(len(keys))], float64(rng.IntN(1000))
				a.AddAt(now, key, v)
				ref.add(now, key, v)
				log = append(log, fmt.Sprintf("AddAt(%d, %q, %v)", now.UnixNano(), key, v))
			} else {
				minSamples := rng.Int64N(6) - 1
				got, want := a.Snapshot(now, minSamples), ref.snapshot(now, minSamples)
				log = append(log, fmt.Sprintf("Snapshot(%d, %d)", now.UnixNano(), minSamples))
				if !slices.Equal(got, want) {
					t.Fatalf("sequence %d (window %v × %d), op %d: Snapshot = %+v, reference %+v\nops:\n%s",
						seq, window, windows, op, got, want, strings.Join(log, "\n"))
				}
			}
			if a.Len() != len(ref.newest) {
				t.Fatalf("sequence %d (window %v × %d), op %d: Len() = %d, reference %d\nops:\n%s",
					seq, window, windows, op, a.Len(), len(ref.newest), strings.Join(log, "\n"))
			}
		}
	}
}
