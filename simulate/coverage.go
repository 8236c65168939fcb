package simulate

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/slowpeer/slowpeer/tracker"
)

// coverage picks the peer of an agent's next probe block: the agent's
// coverage rounds (every peer once per round, a new shuffle each round).
type coverage interface {
	Next() int
}

// rounds are shuffled rounds over n peers.
type rounds struct {
	order []int
	next  int
	rng   *rand.Rand
}

func newCoverage(n int, rng *rand.Rand) coverage {
	r := &rounds{order: make([]int, n), rng: rng}
	for i := range r.order {
		r.order[i] = i
	}
	r.next = n
	return r
}

func (r *rounds) Next() int {
	if r.next == len(r.order) {
		r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
		r.next = 0
	}
	r.next++
	return r.order[r.next-1]
}

// admitSet is a slow set that the fast path's verdicts can also admit to:
// a member at once, leaving after LeaveAfter unless reported or admitted
// again.
type admitSet struct {
	*tracker.SlowSet
	leave    time.Duration
	admitted map[string]time.Time
}

func newAdmitSet(cfg tracker.SlowSetConfig) *admitSet {
	return &admitSet{SlowSet: tracker.NewSlowSet(cfg), leave: cfg.LeaveAfter, admitted: map[string]time.Time{}}
}

// Admit makes node a member at now.
func (a *admitSet) Admit(now time.Time, node string) { a.admitted[node] = now }

// Nodes returns the members at now, sorted.
func (a *admitSet) Nodes(now time.Time) []string {
	out := a.SlowSet.Nodes()
	for n, at := range a.admitted {
		if now.Sub(at) >= a.leave {
			delete(a.admitted, n)
		} else if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// median returns the median of x (reordered), the mean of the middle two
// for an even count.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// roundSignificant rounds x to digits significant digits.
func roundSignificant(x float64, digits int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
