package main

import (
	"fmt"
	"testing"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// TestDemoJudgedBothWays: the demo calls a slow node's kind only once the
// diagnosis has its own row and its peers' cells of it, each with enough
// pairs of enough samples.
func TestDemoJudgedBothWays(t *testing.T) {
	const slow = "10.213.0.14:9866"
	peer := func(i int) string { return fmt.Sprintf("10.213.0.%d:9866", 20+i) }
	cells := func(row, column, samples int) []diagnosis.Cell {
		var cs []diagnosis.Cell
		for i := range row {
			cs = append(cs, diagnosis.Cell{Reporter: slow, Peer: peer(i), LatencyMs: 0.1, Samples: samples})
		}
		for i := range column {
			cs = append(cs, diagnosis.Cell{Reporter: peer(i), Peer: slow, LatencyMs: 40, Samples: samples})
		}
		return cs
	}
	d := &demo{slowID: slow}
	f := func(name string, cs []diagnosis.Cell, want bool) {
		t.Helper()
		if got := d.judgedBothWays(cs); got != want {
			t.Errorf("%s: judged both ways %v, want %v", name, got, want)
		}
	}
	const enough = diagnosis.DefaultMinSamples
	f("nothing yet", nil, false)
	f("its peers' cells, not its own row", cells(0, 11, enough), false)
	f("its own row, too few peers' cells", cells(11, diagnosis.DefaultMinPairs-1, enough), false)
	f("both, too few samples", cells(11, 11, enough-1), false)
	f("both", cells(diagnosis.DefaultMinPairs, diagnosis.DefaultMinPairs, enough), true)
}
