package namenode

import (
	"testing"
	"time"
)

// TestSeats: free seats go to anyone; when all are taken, only a
// reporter live for longer than the newest holder (or any live one, over
// a dead holder) takes a seat, evicting that holder; a tie keeps the
// holder; released and stale seats are free again.
func TestSeats(t *testing.T) {
	t0 := time.Date(2024, 5, 6, 7, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	s := newSeats(3)
	take := func(node string, since int, wantEvicted string, wantOK bool) {
		t.Helper()
		ev, ok := s.take(node, at(since), at(100))
		if ev != wantEvicted || ok != wantOK {
			t.Fatalf("take(%s, live since %d) = %q, %v; want %q, %v", node, since, ev, ok, wantEvicted, wantOK)
		}
	}
	take("a:1", 10, "", true)
	take("b:1", 20, "", true)
	take("c:1", 30, "", true)
	take("d:1", 30, "", false) // a tie with the newest keeps it
	take("d:1", 40, "", false) // newer than every holder
	take("c:1", 30, "", true)  // a holder keeps its seat
	take("d:1", 5, "c:1", true)
	take("c:1", 30, "", false) // refused: changes nothing
	if ev, ok := s.admits("e:1", at(15)); ev != "b:1" || !ok {
		t.Fatalf("admits = %q, %v; want b:1, true", ev, ok)
	}
	s.died("a:1") // the oldest, but dead: the first to go
	take("e:1", 50, "a:1", true)
	if !s.release("e:1") || s.release("e:1") {
		t.Fatal("release does not free exactly once")
	}
	take("f:1", 90, "", true)
	if got := s.stale(at(100).Add(time.Minute), time.Minute); len(got) != 3 || s.len() != 3 {
		t.Fatalf("stale = %v of %d seats, want all 3", got, s.len())
	}
}
