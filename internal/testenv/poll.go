package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond every 20 ms until it holds, and fails the test if it
// does not within the given time, naming what was awaited.
func WaitFor(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
