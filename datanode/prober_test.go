package datanode

import (
	"slices"
	"testing"
	"time"
)

func TestChoosePipeline(t *testing.T) {
	rng := newProber(testProbeConfig("a:1", time.Second), nil, nil, nil, nil, discard, 3).rng
	f := func(peers []string, wantLens []int) {
		t.Helper()
		lens := map[int]bool{}
		for range 200 {
			p := choosePipeline(rng, peers)
			lens[len(p)] = true
			seen := map[string]bool{}
			for _, x := range p {
				if seen[x] || !slices.Contains(peers, x) {
					t.Fatalf("pipeline %v of %v repeats a node or names a stranger", p, peers)
				}
				seen[x] = true
			}
		}
		var got []int
		for l := range lens {
			got = append(got, l)
		}
		slices.Sort(got)
		if !slices.Equal(got, wantLens) {
			t.Fatalf("pipeline lengths %v from %v, want %v", got, peers, wantLens)
		}
	}
	f(nil, []int{0})
	f([]string{"a:1"}, []int{1})
	f([]string{"a:1", "b:1"}, []int{2})
	f([]string{"a:1", "b:1", "c:1", "d:1", "e:1"}, []int{2, 3})
}

// Every node must be next-to-last toward every other now and then.
func TestChoosePipelineCoversPairs(t *testing.T) {
	rng := newProber(testProbeConfig("a:1", time.Second), nil, nil, nil, nil, discard, 5).rng
	peers := []string{"a:1", "b:1", "c:1", "d:1", "e:1"}
	pairs := map[[2]string]bool{}
	for range 2000 {
		p := choosePipeline(rng, peers)
		pairs[[2]string{p[len(p)-2], p[len(p)-1]}] = true
	}
	if len(pairs) != len(peers)*(len(peers)-1) {
		t.Fatalf("%d (next-to-last, last) pairs seen, want %d", len(pairs), len(peers)*(len(peers)-1))
	}
}

func TestProbePeers(t *testing.T) {
	if got := probePeers("b:1", []string{"a:1", "b:1", "c:1"}); !slices.Equal(got, []string{"a:1", "c:1"}) {
		t.Fatalf("probePeers = %v", got)
	}
}
