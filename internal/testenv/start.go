package testenv

import (
	"context"
	"sync"
	"testing"
)

// Start runs run in a goroutine of its own, for a long-running component's
// Run(ctx) under a test, until stop is called or the test ends. stop
// cancels run's context, waits for run to return and fails the test if it
// returned an error; calling it again does nothing. A cleanup registered
// before Start (closing what the component uses) runs after stop.
func Start(t testing.TB, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
