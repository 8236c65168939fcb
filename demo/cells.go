package demo

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/slowpeer/slowpeer/diagnosis"
)

// writeCells writes the diagnosis's reporter × peer matrix as the last
// diagnosis saw it, one line per reporter, each cell its latency in
// milliseconds and, in parentheses, its samples, so that a false positive
// can be read off the cells it came from. Rows and columns are named by the host's last
// address byte when every node is on one /24, as in the lab.
func (d *demo) writeCells(w io.Writer) {
	cells, _ := d.srv.PeerLatencyCells(0)
	var nodes []string
	byPair := map[[2]string]diagnosis.Cell{}
	for _, c := range cells {
		byPair[[2]string{c.Reporter, c.Peer}] = c
		nodes = append(nodes, c.Reporter, c.Peer)
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	short := func(n string) string {
		host, _, _ := strings.Cut(n, ":")
		if i := strings.LastIndexByte(host, '.'); i >= 0 {
			return host[i+1:]
		}
		return n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "demo: the matrix at %v (ms, samples), a row per reporter, a column per peer:\n       ", d.since())
	for _, p := range nodes {
		fmt.Fprintf(&b, " %13s", short(p))
	}
	b.WriteByte('\n')
	for _, r := range nodes {
		fmt.Fprintf(&b, "  %4s:", short(r))
		for _, p := range nodes {
			c, ok := byPair[[2]string{r, p}]
			if !ok {
				b.WriteString("         -    ")
				continue
			}
			fmt.Fprintf(&b, " %8.3f(%3d)", c.LatencyMs, c.Samples)
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}
