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
	if m != nil {
		return matrixHeatmap(m)
	}
	latency := map[pair]float64{}
	median := map[pair]float64{}
	h := heatmap{FromReports: true}
	for _, s := range slow {
		for _, r := range s.Reporters {
			latency[pair{r.Node, s.Node}] = r.LatencyMs
			median[pair{r.Node, s.Node}] = r.MedianMs
		}
	}
	// A row or column scores what its cells exceed their medians by, in
	// all: a slow sender's row and a slow receiver's column stand out, and
	// so does a bad link's one cell among cells at the median.
	rowScore, colScore := map[string]float64{}, map[string]float64{}
	for p, l := range latency {
		over := excess(l, median[p])
		rowScore[p.reporter] += over
		colScore[p.peer] += over
	}
	rows, cols := topKeys(rowScore), topKeys(colScore)
	h.AllReporters, h.AllPeers, h.Peers = len(rowScore), len(colScore), cols
	for _, rep := range rows {
		row := heatRow{Reporter: rep, Cells: make([]heatCell, len(cols))}
		for i, peer := range cols {
			if l, ok := latency[pair{rep, peer}]; ok {
				row.Cells[i] = newCell(l, median[pair{rep, peer}])
			}
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// matrixHeatmap is newHeatmap of a Matrix: every cell compared with the
// median of all. Scores are summed over the cells as they come, and only
// the cells of the rows and columns shown are kept, so that a matrix of
// 10 000 reporters × 15 peers costs two map updates a cell, not a map of
// every pair. (Matrix.Latencies holds each pair once; one given twice
// would count twice in the scores.)
func matrixHeatmap(m *Matrix) heatmap {
	h := heatmap{}
	values := make([]float64, len(m.Latencies))
	for i, l := range m.Latencies {
		values[i] = l.LatencyMs
	}
	h.MedianMs = medianOf(values)
	rowScore, colScore := map[string]float64{}, map[string]float64{}
	for _, l := range m.Latencies {
		over := excess(l.LatencyMs, h.MedianMs)
		rowScore[l.Reporter] += over
		colScore[l.Peer] += over
	}
	rows, cols := topKeys(rowScore), topKeys(colScore)
	h.AllReporters, h.AllPeers, h.Peers = len(rowScore), len(colScore), cols
	var row, col map[string]int
	h.Rows, row, col = grid(rows, cols)
	for _, l := range m.Latencies {
		r, inRow := row[l.Reporter]
		c, inCol := col[l.Peer]
		if inRow && inCol {
			h.Rows[r].Cells[c] = newCell(l.LatencyMs, h.MedianMs)
		}
	}
	return h
}

// grid returns the empty rows of a heatmap of rows × cols, and the index
// of each row and column name.
func grid(rows, cols []string) (out []heatRow, row, col map[string]int) {
	row = make(map[string]int, len(rows))
	for i, r := range rows {
		row[r] = i
		out = append(out, heatRow{Reporter: r, Cells: make([]heatCell, len(cols))})
	}
	col = make(map[string]int, len(cols))
	for i, c := range cols {
		col[c] = i
	}
	return out, row, col
}

// excess is what latencyMs exceeds medianMs by, as a ratio less one (0
// below it, at most 1e6): a cell's part of its row's and column's score.
func excess(latencyMs, medianMs float64) float64 {
	return max(0, min(ratio(latencyMs, medianMs), 1e6)-1)
}

// newCell is a measured cell of latencyMs against medianMs.
func newCell(latencyMs, medianMs float64) heatCell {
	r := ratio(latencyMs, medianMs)
	return heatCell{Measured: true, LatencyMs: latencyMs, Ratio: r, Level: level(r)}
}

// topKeys returns the MaxHeatmapNodes keys of the highest scores, sorted
// by name.
func topKeys(score map[string]float64) []string {
	type scored struct {
		key   string
		score float64
	}
	all := make([]scored, 0, len(score))
	for k, v := range score {
		all = append(all, scored{k, v})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	keys := make([]string, min(len(all), MaxHeatmapNodes))
	for i := range keys {
		keys[i] = all[i].key
	}
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
