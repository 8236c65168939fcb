package namenode

import (
	"strings"
	"testing"
)

// The budget follows the keys, and at the defaults, every limit full, it
// is under 512 MiB.
func TestMemoryBudget(t *testing.T) {
	cfg := DefaultConfig()
	b := MemoryBudget(cfg)
	if b.Total() >= 512<<20 {
		t.Fatalf("budget at the defaults %s: not under 512 MiB", b)
	}
	cfg.MaxDiagnosisReporters *= 2
	if d := MemoryBudget(cfg).Heap() - b.Heap(); d != int64(DefaultMaxDiagnosisReporters*DefaultMaxPeerLatencies)*(cellBytes+pendingCellBytes+fitCellBytes) {
		t.Fatalf("twice the reporters add %d bytes", d)
	}
	if s := b.String(); !strings.Contains(s, "tracker entries") || !strings.Contains(s, "resident at most") {
		t.Fatalf("String = %q", s)
	}
}
