package dashboard

import (
	"embed"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"ms":        formatMs,
	"ratio":     formatRatio,
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"clock":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"ago":       formatAgo,
	"age":       formatAge,
	"slowRatio": func() int { return SlowRatio },
	"rowOf":     func(now time.Time, r slowSetRow) slowSetRowAt { return slowSetRowAt{Now: now, M: r} },
	"div":       ratio,
}).ParseFS(assets, "assets/*.html"))

// page is what the templates draw: a View digested for the eye.
type page struct {
	Now time.Time
	// SlowSet is nil without one; its rows otherwise.
	SlowSet   *slowSetRows
	Slow      []slowRow
	Diagnosis *Diagnosis
	Heatmap   heatmap
	// DataNodes are the first MaxDataNodeRows DataNodes, dead and stale
	// first; MoreDataNodes counts the others.
	DataNodes     []DataNode
	MoreDataNodes int
	// AllDataNodes counts every DataNode; Live, Stale, Dead and Excluded
	// count them by state.
	AllDataNodes                int
	Live, Stale, Dead, Excluded int
	Hive                        *HiveServers
	Cluster                     *Cluster
	Disks                       *diskPage
	Suspects                    *suspectsPage
}

// slowRow is one row of the slow-node table.
type slowRow struct {
	Node string
	// Reporters counts the reporters; Names are the first
	// maxReporterNames of them and More the others.
	Reporters int
	Names     []string
	More      int
	// LatencyMs is the median of the latencies reported, MedianMs the
	// median of the reporters' medians, Ratio the first over the second.
	LatencyMs, MedianMs, Ratio float64
	Since                      time.Time
	// Diagnosis is what the diagnosis says of Node ("" for nothing).
	Diagnosis string
}

// newPage digests v at now, with heat, the heatmap of v.
func newPage(now time.Time, v View, heat heatmap) page {
	p := page{Now: now, Diagnosis: v.Diagnosis, Heatmap: heat,
		Hive: v.HiveServers, Cluster: v.Cluster, Disks: newDiskPage(v.Disks),
		Suspects: newSuspectsPage(v.Suspects)}
	if v.SlowSet != nil {
		p.SlowSet = &slowSetRows{Nodes: newSlowSetRows(v.SlowSet.Nodes), Links: newSlowSetRows(v.SlowSet.Links)}
	}
	for _, s := range v.SlowNodes {
		row := slowRow{Node: s.Node, Since: s.Since, Reporters: len(s.Reporters)}
		var lat, med []float64
		for i, r := range s.Reporters {
			if i < maxReporterNames {
				row.Names = append(row.Names, r.Node)
			} else {
				row.More++
			}
			lat, med = append(lat, r.LatencyMs), append(med, r.MedianMs)
		}
		row.LatencyMs, row.MedianMs = medianOf(lat), medianOf(med)
		row.Ratio = ratio(row.LatencyMs, row.MedianMs)
		if v.Diagnosis != nil {
			row.Diagnosis = diagnosisOf(v.Diagnosis.Findings, s.Node)
		}
		p.Slow = append(p.Slow, row)
	}
	p.DataNodes = slices.Clone(v.DataNodes)
	slices.SortStableFunc(p.DataNodes, func(a, b DataNode) int { return stateOrder(a.State) - stateOrder(b.State) })
	for _, d := range p.DataNodes {
		switch d.State {
		case Live:
			p.Live++
		case Stale:
			p.Stale++
		case Dead:
			p.Dead++
		case Excluded:
			p.Excluded++
		}
	}
	p.AllDataNodes = len(p.DataNodes)
	if len(p.DataNodes) > MaxDataNodeRows {
		p.MoreDataNodes = len(p.DataNodes) - MaxDataNodeRows
		p.DataNodes = p.DataNodes[:MaxDataNodeRows]
	}
	return p
}

// MaxDataNodeRows bounds the rows of the DataNode table: the dead and
// stale nodes come first, the counts cover all, and GET /v1/datanodes
// lists the rest. A row costs about 19 µs to render: 10 000 rows were a
// quarter of a second every 2 s for each open page, 500 still the
// longest part of a page (9 ms); 100 are 2 ms.
const MaxDataNodeRows = 100

// maxReporterNames is how many reporters the slow-node table names.
const maxReporterNames = 8

// stateOrder puts the DataNodes that need a look first, the excluded
// ones last.
func stateOrder(s string) int {
	switch s {
	case Dead:
		return 0
	case Stale:
		return 1
	case Excluded:
		return 3
	}
	return 2
}

// diagnosisOf says in words what the findings say of node.
func diagnosisOf(findings []Finding, node string) string {
	var says []string
	for _, f := range findings {
		if f.Node != node {
			continue
		}
		s := f.Kind
		switch f.Kind {
		case KindLink:
			s = "link to " + f.Peer
		case KindRack:
			s = "rack " + f.Rack
		}
		if !slices.Contains(says, s) {
			says = append(says, s)
		}
	}
	return strings.Join(says, ", ")
}

// writePage writes the whole page of p.
func writePage(w io.Writer, p page) error { return templates.ExecuteTemplate(w, "page.html", p) }

// writeSections writes the sections that live updates replace.
func writeSections(w io.Writer, p page) error { return templates.ExecuteTemplate(w, "sections", p) }

// formatMs writes a latency in milliseconds with three significant
// digits at most, at least one decimal below 100.
func formatMs(ms float64) string {
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 2, 64)
}

// formatRatio writes a ratio as "16.7×", "∞" when there was no median.
func formatRatio(r float64) string {
	if r > 1e6 {
		return "∞"
	}
	if r >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64) + "×"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "×"
}

// formatAge writes how long before now t was, to the second.
func formatAge(now, t time.Time) string { return max(0, now.Sub(t).Round(time.Second)).String() }

// formatAgo writes how long ago t was, "just now" within a second.
func formatAgo(now, t time.Time) string {
	if now.Sub(t) < time.Second/2 {
		return "just now"
	}
	return formatAge(now, t) + " ago"
}
