package testenv

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	c := NewClock(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v, want %v", got, t0)
	}
	c.Advance(time.Minute)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after Advance(1m): %v", got)
	}
}
