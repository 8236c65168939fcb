package namenode

import (
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slowpeer/slowpeer/jmx"
)

// referenceNodesJSON is LiveNodes (live true) or DeadNodes as the
// service first wrote them: maps of maps through jmx.MarshalJackson.
func referenceNodesJSON(now time.Time, nodes []DataNode, live bool, excluded map[string]bool) string {
	info := map[string]map[string]any{}
	for _, n := range nodes {
		admin := adminInService
		if excluded[n.Node] {
			admin = "Decommissioned"
		}
		switch {
		case live && n.State == Live:
			m := map[string]any{"xferaddr": n.Node, "lastContact": lastContactSeconds(now, n.LastHeartbeat),
				"adminState": admin, "version": unknownVersion}
			if host, _, err := net.SplitHostPort(n.HTTPAddress); err == nil {
				m["infoAddr"] = n.HTTPAddress
				m["infoSecureAddr"] = net.JoinHostPort(host, "0")
			} else {
				host, _, _ := net.SplitHostPort(n.Node)
				m["infoAddr"] = net.JoinHostPort(host, "0")
				m["infoSecureAddr"] = m["infoAddr"]
			}
			info[n.Node] = m
		case !live && n.State == Dead:
			info[n.Node] = map[string]any{"lastContact": lastContactSeconds(now, n.LastHeartbeat),
				"decommissioned": excluded[n.Node], "adminState": admin, "xferaddr": n.Node}
		}
	}
	b, err := jmx.MarshalJackson(info)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestNodesJSONMatchesReference compares liveNodesJSON and deadNodesJSON
// byte for byte with the reflective reference, on random tables.
func TestNodesJSONMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for round := range 200 {
		var nodes []DataNode
		excluded := map[string]bool{}
		for i := range rng.IntN(30) {
			n := DataNode{Node: fmt.Sprintf("10.0.%d.%d:9866", round, i), State: Live,
				LastHeartbeat: now.Add(-time.Duration(rng.Int64N(int64(time.Hour))))}
			switch rng.IntN(4) {
			case 0:
				n.Node = fmt.Sprintf("[fe80::%x]:9866", i)
			case 1:
				n.HTTPAddress = strings.TrimSuffix(n.Node, "9866") + "9864"
			case 2:
				n.HTTPAddress = fmt.Sprintf("dn%d.example.com:9864", i)
			}
			if rng.IntN(3) == 0 {
				n.State = Dead
			}
			excluded[n.Node] = rng.IntN(5) == 0
			nodes = append(nodes, n)
		}
		slices.SortFunc(nodes, func(a, b DataNode) int { return strings.Compare(a.Node, b.Node) })
		isExcluded := func(node string) bool { return excluded[node] }
		if got, want := liveNodesJSON(now, nodes, isExcluded), referenceNodesJSON(now, nodes, true, excluded); got != want {
			t.Fatalf("LiveNodes of %v:\n got %s\nwant %s", nodes, got, want)
		}
		if got, want := deadNodesJSON(now, nodes, isExcluded), referenceNodesJSON(now, nodes, false, excluded); got != want {
			t.Fatalf("DeadNodes of %v:\n got %s\nwant %s", nodes, got, want)
		}
	}
}
