package diagnosis

import (
	"reflect"
	"testing"

	"github.com/slowpeer/slowpeer/reports"
)

// TestEvidence pins the rule that feeds the slow sets: node findings and
// rack members count with their pairs, links go apart, the raw reports of
// reporters without peerLatencies add.
func TestEvidence(t *testing.T) {
	racks := func(rack string) []string {
		if rack == "/r2" {
			return []string{"c:1", "d:1"}
		}
		return nil
	}
	f := func(name string, findings []Finding, unmeasured []reports.NodeCount, wantNodes, wantLinks []reports.NodeCount) {
		t.Helper()
		nodes, links := Evidence(findings, racks, unmeasured)
		if !reflect.DeepEqual(nodes, wantNodes) || !reflect.DeepEqual(links, wantLinks) {
			t.Errorf("%s: nodes %v links %v, want %v and %v", name, nodes, links, wantNodes, wantLinks)
		}
	}
	f("nothing", nil, nil, nil, nil)
	f("kinds", []Finding{
		{Node: "b:1", Kind: Outbound, Reporters: 9},
		{Node: "a:1", Kind: Inbound, Reporters: 7},
		{Node: "e:1", Kind: Both, Reporters: 20},
		{Node: "x:1", Kind: Link, Peer: "f:1", Reporters: 2},
		{Node: "g:1", Kind: Link, Peer: "h:1", Reporters: 1},
		{Node: "d:1", Kind: Rack, Rack: "/r2", Reporters: 30},
	}, nil,
		[]reports.NodeCount{{Node: "a:1", Reporters: 7}, {Node: "b:1", Reporters: 9}, {Node: "c:1", Reporters: 30},
			{Node: "d:1", Reporters: 30}, {Node: "e:1", Reporters: 20}},
		[]reports.NodeCount{{Node: "link:f:1|x:1", Reporters: 2}, {Node: "link:g:1|h:1", Reporters: 1}})
	f("largest finding wins", []Finding{
		{Node: "c:1", Kind: Inbound, Reporters: 40},
		{Node: "d:1", Kind: Rack, Rack: "/r2", Reporters: 30},
	}, nil, []reports.NodeCount{{Node: "c:1", Reporters: 40}, {Node: "d:1", Reporters: 30}}, nil)
	f("unknown rack", []Finding{{Node: "z:1", Kind: Rack, Rack: "/r9", Reporters: 3}}, nil, nil, nil)
	f("unmeasured reporters add", []Finding{{Node: "a:1", Kind: Inbound, Reporters: 3}},
		[]reports.NodeCount{{Node: "a:1", Reporters: 2}, {Node: "q:1", Reporters: 1}, {Node: "r:1", Reporters: 0}},
		[]reports.NodeCount{{Node: "a:1", Reporters: 5}, {Node: "q:1", Reporters: 1}}, nil)
	if nodes, _ := Evidence([]Finding{{Node: "a:1", Kind: Rack, Rack: "/r2", Reporters: 4}}, nil, nil); nodes != nil {
		t.Errorf("rack without rackNodes: %v", nodes)
	}
	if LinkEntity("b:1", "a:1") != LinkEntity("a:1", "b:1") || LinkEntity("a:1", "b:1") != "link:a:1|b:1" {
		t.Errorf("LinkEntity not symmetric: %s %s", LinkEntity("b:1", "a:1"), LinkEntity("a:1", "b:1"))
	}
}
