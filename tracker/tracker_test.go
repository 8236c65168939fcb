package tracker

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/reports"
)

// trackerValidity is 3 × the default dfs.datanode.outliers.report.interval.
const trackerValidity = 90 * time.Minute

var trackerT0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func trackerAt(d time.Duration) time.Time { return trackerT0.Add(d) }

// trackerPeer is a slow peer whose statistics all derive from latencyMs,
// so that a test can tell them apart.
func trackerPeer(node string, latencyMs float64) reports.SlowPeer {
	return reports.SlowPeer{Node: node, LatencyMs: latencyMs, MedianMs: latencyMs / 10, MADMs: latencyMs / 100, UpperLimitMs: latencyMs / 2}
}

func TestNewPanicsOnBadValidity(t *testing.T) {
	f := func(validity time.Duration) {
		t.Helper()
		defer func() {
			t.Helper()
			if msg, _ := recover().(string); !strings.HasPrefix(msg, "BUG: ") {
				t.Errorf("New(%v) panicked with %q, want a BUG: panic", validity, msg)
			}
		}()
		New(validity)
	}
	f(0)
	f(-time.Second)
}

func TestTopNotPositive(t *testing.T) {
	tr := New(trackerValidity)
	tr.Report(trackerT0, "x:1", []reports.SlowPeer{trackerPeer("a:1", 1)})
	f := func(tr *Tracker, n int) {
		t.Helper()
		if got := tr.Top(trackerT0, n); got == nil || len(got) != 0 {
			t.Errorf("Top(%d) = %#v, want an empty non-nil slice", n, got)
		}
	}
	f(tr, 0)
	f(tr, -3)
	f(New(trackerValidity), 5)
}

// TestConcurrent runs every method from several goroutines at once
// (meant for -race); each goroutine owns its reporters and reports at trackerT0,
// so the final state is known.
func TestConcurrent(t *testing.T) {
	const goroutines, rounds, nodes = 4, 200, 12
	tr := New(trackerValidity)
	name := func(i int) string { return fmt.Sprintf("10.0.0.%d:9866", i%nodes) }
	final := func(g, r int) []reports.SlowPeer { // what reporter r of g says in its last round
		return []reports.SlowPeer{trackerPeer(name(g+r+1), float64(r)), trackerPeer(name(g+2*r+2), float64(g))}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for round := range rounds {
				for r := g; r < nodes; r += goroutines {
					if round == rounds-1 {
						tr.Report(trackerT0, name(r), final(g, r))
					} else {
						tr.Report(trackerT0, name(r), []reports.SlowPeer{trackerPeer(name(round+r+1), 1)})
					}
				}
				tr.Top(trackerT0, 3)
				tr.IsSlow(trackerT0, name(round))
				tr.Counts(trackerT0)
				tr.Expire(trackerAt(trackerValidity / 2))
				tr.Entries()
			}
		})
	}
	wg.Wait()
	ref := newNaiveTracker(trackerValidity)
	for g := range goroutines {
		for r := g; r < nodes; r += goroutines {
			ref.Report(trackerT0, name(r), final(g, r))
		}
	}
	if got, want := tr.Top(trackerT0, nodes), ref.Top(trackerT0, nodes); !reflect.DeepEqual(got, want) {
		t.Errorf("after concurrent use Top =\n%+v\nwant\n%+v", got, want)
	}
	if got, want := tr.Entries(), ref.Entries(); got != want {
		t.Errorf("after concurrent use Entries = %d, want %d", got, want)
	}
	checkInvariants(t, tr)
}
