package discovery

import (
	"slices"
	"sync/atomic"
	"testing"
)

// A leader's publisher (Leading, TakeOver) deletes an earlier leader's
// znodes before it creates its own, so two publishers never stand in the
// namespace at once; while Leading says no it writes nothing.
func TestPublisherTakeOver(t *testing.T) {
	a := "hs1:10000"
	z := newFakeZK(fakeSession)
	stale := "/pub/serverUri=hs9:10000;version=slowpeer;sequence=0000000000"
	z.put("/pub", nil, 0)
	z.put(stale, []byte("hs9:10000"), fakeSession+1) // an earlier leader's
	var leading atomic.Bool
	cfg := testPublisherConfig(func() []string { return []string{a} })
	cfg.Leading, cfg.TakeOver = leading.Load, true
	p := newPublisher(cfg, z)
	want := p.records([]string{a})

	if _, err := p.reconcile(want); err == nil {
		t.Fatal("a publisher that does not lead wrote")
	}
	if got := z.takeWrites(); len(got) != 0 {
		t.Fatalf("not leading: writes %q", got)
	}
	leading.Store(true)
	if _, err := p.reconcile(want); err != nil {
		t.Fatal(err)
	}
	if got, w := z.takeWrites(), []string{"delete " + stale, "create " + znodeOf(t, a, "0000000000")}; !slices.Equal(got, w) {
		t.Errorf("take over: writes %q, want %q", got, w)
	}
	// Stopping deletes its own znodes even when it no longer leads.
	leading.Store(false)
	if _, err := p.reconcile(nil); err != nil {
		t.Fatal(err)
	}
	if got := z.takeWrites(); !slices.Equal(got, []string{"delete " + znodeOf(t, a, "0000000000")}) {
		t.Errorf("stop: writes %q", got)
	}
}
