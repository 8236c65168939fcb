package dashboard

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Disks is what the service knows of the DataNodes' volumes: the slow
// disks of its fleet view and every volume measured, for the per-node
// disk heatmap.
type Disks struct {
	// Slow are the disks the fleet view finds slow now, in the order to
	// show them.
	Slow []SlowDisk
	// Volumes are every measured volume, in any order.
	Volumes []Volume
}

// SlowDisk is one disk the fleet view finds slow, as an element of
// GET /v1/slowdisks.
type SlowDisk struct {
	// Node is its DataNode's id, Disk the volume's name, Kind its device
	// kind ("" unknown).
	Node, Disk, Kind string
	// Evidence is "latency" (of Op, while its device is not busy) or
	// "service" (its device's time per operation and per byte).
	Evidence, Op string
	// ValueMs is the volume's figure and MedianMs the median of like
	// volumes', in milliseconds.
	ValueMs, MedianMs float64
	// InSlowSet is true once the disk is in the slow set of disks.
	InSlowSet bool
}

// Volume is one measured volume of a DataNode.
type Volume struct {
	// Node is its DataNode's id, Disk the volume's name, Kind its device
	// kind.
	Node, Disk, Kind string
	// LatencyMs is its highest latency over the operations measured.
	LatencyMs float64
}

// diskPage is the disks' part of a page.
type diskPage struct {
	Slow []SlowDisk
	Heat diskHeatmap
}

// diskHeatmap is the node × volume grid: a slow disk is a cell, a node
// whose every disk is slow (a controller) a row.
type diskHeatmap struct {
	Disks []string
	Rows  []heatRow // Reporter holds the node
	// AllNodes and AllDisks count the axes before MaxHeatmapNodes.
	AllNodes, AllDisks int
}

// newDiskPage digests d; nil for nil.
func newDiskPage(d *Disks) *diskPage {
	if d == nil {
		return nil
	}
	p := &diskPage{Slow: d.Slow}
	// Each volume against the median of its kind.
	byKind := map[string][]float64{}
	for _, v := range d.Volumes {
		byKind[v.Kind] = append(byKind[v.Kind], v.LatencyMs)
	}
	median := make(map[string]float64, len(byKind))
	for k, vs := range byKind {
		median[k] = medianOf(vs)
	}
	rowScore, colScore := map[string]float64{}, map[string]float64{}
	for _, v := range d.Volumes {
		over := excess(v.LatencyMs, median[v.Kind])
		rowScore[v.Node] += over
		colScore[v.Disk] += over
	}
	rows, cols := topKeys(rowScore), topKeys(colScore)
	slices.SortFunc(rows, compareNatural)
	slices.SortFunc(cols, compareNatural)
	p.Heat = diskHeatmap{Disks: cols, AllNodes: len(rowScore), AllDisks: len(colScore)}
	var row, col map[string]int
	p.Heat.Rows, row, col = grid(rows, cols)
	for _, v := range d.Volumes {
		r, inRow := row[v.Node]
		c, inCol := col[v.Disk]
		if inRow && inCol {
			p.Heat.Rows[r].Cells[c] = newCell(v.LatencyMs, median[v.Kind])
		}
	}
	return p
}

// compareNatural orders names with their runs of digits by number, so
// that /data/2 comes before /data/10.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			x, _ := strconv.ParseUint(a[:da], 10, 64)
			y, _ := strconv.ParseUint(b[:db], 10, 64)
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of the run of ASCII digits s starts with, at
// most 18 (so that it fits a uint64).
func digitRun(s string) int {
	n := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if n < 0 {
		n = len(s)
	}
	return min(n, 18)
}
