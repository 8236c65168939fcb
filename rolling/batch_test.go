package rolling

import (
	"math"
	"testing"
	"time"
)

// TestAddBatchAtMatchesAddAt checks that a batch counts as its samples
// one by one would, in the same window, and that an empty or non-finite
// batch records nothing.
func TestAddBatchAtMatchesAddAt(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	one, batch := New(time.Minute, 3), New(time.Minute, 3)
	for w := range 5 {
		at := t0.Add(time.Duration(w) * time.Minute)
		sum := 0.0
		for i := range 4 {
			v := float64(w*10 + i)
			one.AddAt(at, "a", v)
			sum += v
		}
		batch.AddBatchAt(at, "a", sum, 4)
		batch.AddBatchAt(at, "a", 1, 0)
		batch.AddBatchAt(at, "a", math.NaN(), 3)
		batch.AddBatchAt(at, "a", math.Inf(1), 3)
	}
	now := t0.Add(4 * time.Minute)
	got, want := batch.Snapshot(now, 0), one.Snapshot(now, 0)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Fatalf("batched %+v, one by one %+v", got, want)
	}
	if got[0].Count != 12 {
		t.Fatalf("count %d, want 12 (three valid windows of 4)", got[0].Count)
	}
}
