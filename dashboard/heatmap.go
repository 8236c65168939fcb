package dashboard

import (
	"cmp"
	"math"
	"slices"
)

// MaxHeatmapNodes bounds each axis of the heatmap: the reporters and the
// peers whose latencies exceed the median most are shown, the others
// counted.
const MaxHeatmapNodes = 32

// SlowRatio is the ratio to the median from which a heatmap cell is
// marked slow: 3 × the median, one of the three limits of Hadoop's
// OutlierDetector.
const SlowRatio = 3

// heatmap is the reporter × peer grid the page draws: a slow receiver is a
// column, a slow sender a row, a bad link a cell.
type heatmap struct {
	// FromReports is set when the grid comes from the slow-peer reports
	// (only their outliers), for want of a Matrix.
	FromReports bool
	Peers       []string
	Rows        []heatRow
	// AllReporters and AllPeers count the axes before MaxHeatmapNodes.
	AllReporters, AllPeers int
	// MedianMs is the median of all cells (from a Matrix only).
	MedianMs float64
}

type heatRow struct {
	Reporter string
	Cells    []heatCell
}

// heatCell is one cell; Level (0 to 5) sets its background, Ratio its
// mark, and the number is always written.
type heatCell struct {
	Measured  bool
	LatencyMs float64
	Ratio     float64 // to the median it is compared with
	Level     int
}

// Slow reports whether the cell is SlowRatio × its median or more.
func (c heatCell) Slow() bool { return c.Measured && c.Ratio >= SlowRatio }

type pair struct{ reporter, peer string }

// newHeatmap builds the grid from m, or without m from the latencies of
// the slow-peer reports on slow, each compared with its reporter's median.
func newHeatmap(m *Matrix, slow []SlowNode) heatmap {
	latency := map[pair]float64{}
	median := map[pair]float64{}
	var h heatmap
	if m != nil {
		values := make([]float64, 0, len(m.Latencies))
		for _, l := range m.Latencies {
			latency[pair{l.Reporter, l.Peer}] = l.LatencyMs
			values = append(values, l.LatencyMs)
		}
		h.MedianMs = medianOf(values)
		for p := range latency {
			median[p] = h.MedianMs
		}
	} else {
		h.FromReports = true
		for _, s := range slow {
			for _, r := range s.Reporters {
				latency[pair{r.Node, s.Node}] = r.LatencyMs
				median[pair{r.Node, s.Node}] = r.MedianMs
			}
		}
	}
	// A row or column scores what its cells exceed their medians by, in
	// all: a slow sender's row and a slow receiver's column stand out, and
	// so does a bad link's one cell among cells at the median.
	rowScore, colScore := map[string]float64{}, map[string]float64{}
	for p, l := range latency {
		over := max(0, min(ratio(l, median[p]), 1e6)-1)
		rowScore[p.reporter] += over
		colScore[p.peer] += over
	}
	rows, cols := topKeys(rowScore), topKeys(colScore)
	h.AllReporters, h.AllPeers, h.Peers = len(rowScore), len(colScore), cols
	for _, rep := range rows {
		row := heatRow{Reporter: rep, Cells: make([]heatCell, len(cols))}
		for i, peer := range cols {
			l, ok := latency[pair{rep, peer}]
			if !ok {
				continue
			}
			r := ratio(l, median[pair{rep, peer}])
			row.Cells[i] = heatCell{Measured: true, LatencyMs: l, Ratio: r, Level: level(r)}
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// topKeys returns the MaxHeatmapNodes keys of the highest scores, sorted
// by name.
func topKeys(score map[string]float64) []string {
	keys := make([]string, 0, len(score))
	for k := range score {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keys = keys[:min(len(keys), MaxHeatmapNodes)]
	slices.Sort(keys)
	return keys
}

// ratio is latency / median, 1 when there is no median to compare with.
func ratio(latencyMs, medianMs float64) float64 {
	if medianMs <= 0 {
		if latencyMs > 0 {
			return math.Inf(1)
		}
		return 1
	}
	return latencyMs / medianMs
}

// level maps a ratio to a background class: 0 up to 1.5 ×, then one more
// for every doubling, at most 5 (24 × and more).
func level(ratio float64) int {
	if ratio < 1.5 {
		return 0
	}
	return min(5, 1+int(math.Log2(ratio/1.5)))
}

// medianOf is the median of values (Hadoop's rule: the mean of the two
// middle ones for an even count), 0 for none. values is reordered.
func medianOf(values []float64) float64 {
	n := len(values)
	if n == 0 {
		return 0
	}
	slices.Sort(values)
	if n%2 == 1 {
		return values[n/2]
	}
	return (values[n/2-1] + values[n/2]) / 2
}
