package suspect

import (
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// Heartbeats (Observe, Requests), steps and readers at once, as the
// service runs them: run with -race.
func TestConcurrentUse(t *testing.T) {
	d := New(DefaultConfig())
	ns := names(8)
	start := time.Unix(1000, 0)
	var wg sync.WaitGroup
	for w, a := range ns {
		wg.Go(func() {
			for i := range 200 {
				now := start.Add(time.Duration(i) * 100 * time.Millisecond)
				var rs []reports.RecentLatency
				for _, b := range ns {
					if b != a {
						x := 1.0
						if b == ns[0] {
							x = 9
						}
						rs = append(rs, reports.RecentLatency{Node: b, LatencyMs: x, Blocks: 1, Round: int64(i % 3)})
					}
				}
				d.Observe(now, a, rs)
				d.Requests(now, a)
				if w == 0 && i%50 == 0 {
					d.Forget(ns[7])
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			now := start.Add(time.Duration(i) * 100 * time.Millisecond)
			d.Step(now, all)
			d.Suspects(now)
			d.Confirmed(now)
			d.Opened()
		}
	})
	wg.Wait()
}
