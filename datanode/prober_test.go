package datanode

import (
	"slices"
	"testing"
)

func TestProbePeers(t *testing.T) {
	if got := probePeers("b:1", []string{"a:1", "b:1", "c:1"}); !slices.Equal(got, []string{"a:1", "c:1"}) {
		t.Fatalf("probePeers = %v", got)
	}
}
