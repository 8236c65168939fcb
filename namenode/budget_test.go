package namenode

import (
	"strings"
	"testing"

	"github.com/slowpeer/slowpeer/suspect"
)

// The budget follows the keys: at the defaults, every limit full, it is
// under 512 MiB without the fast path, and the fast path adds its model
// (pairs of DataNodes, at most MaxPeerLatencies a reporter: suspect's
// TestModelBytes measures PairBytes and NodeBytes) and its pending
// evidence.
func TestMemoryBudget(t *testing.T) {
	cfg := DefaultConfig()
	b := MemoryBudget(cfg)
	off := cfg
	off.SuspectEnabled = false
	if total := MemoryBudget(off).Total(); total >= 512<<20 {
		t.Fatalf("budget at the defaults without the fast path %s: not under 512 MiB", MemoryBudget(off))
	}
	fast := int64(DefaultMaxDataNodes)*(suspect.NodeBytes+DefaultMaxPeerLatencies*suspect.PairBytes) + suspect.PendingBytes
	if d := b.Heap() - MemoryBudget(off).Heap(); d != fast {
		t.Fatalf("the fast path adds %d bytes, want %d", d, fast)
	}
	cfg.MaxDiagnosisReporters *= 2
	if d := MemoryBudget(cfg).Heap() - b.Heap(); d != int64(DefaultMaxDiagnosisReporters*DefaultMaxPeerLatencies)*(cellBytes+pendingCellBytes+fitCellBytes) {
		t.Fatalf("twice the reporters add %d bytes", d)
	}
	cfg = DefaultConfig()
	cfg.MaxPeerLatencies *= 2
	cells := int64(DefaultMaxDiagnosisReporters * DefaultMaxPeerLatencies * (cellBytes + pendingCellBytes + fitCellBytes))
	pairs := int64(DefaultMaxDataNodes * DefaultMaxPeerLatencies * suspect.PairBytes)
	if d := MemoryBudget(cfg).Heap() - b.Heap(); d != cells+pairs {
		t.Fatalf("twice the peer latencies add %d bytes, want %d", d, cells+pairs)
	}
	if s := b.String(); !strings.Contains(s, "tracker entries") || !strings.Contains(s, "fast path") || !strings.Contains(s, "resident at most") {
		t.Fatalf("String = %q", s)
	}
}
