package main

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestRunBehindHelperOutlivesMain: the helper's context ends only after
// main has returned, and a failing helper stops main.
func TestRunBehindHelperOutlivesMain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	mainDone := make(chan struct{})
	go cancel()
	err := runBehind(ctx, func(ctx context.Context) error {
		<-ctx.Done()
		note("main stopped")
		close(mainDone)
		return nil
	}, func(ctx context.Context) error {
		<-ctx.Done()
		select {
		case <-mainDone:
		default:
			t.Error("helper's context ended before main returned")
		}
		note("helper stopped")
		return nil
	})
	if err != nil || len(order) != 2 || order[0] != "main stopped" {
		t.Fatalf("runBehind = %v, order %q", err, order)
	}

	boom := errors.New("boom")
	err = runBehind(context.Background(), func(ctx context.Context) error {
		<-ctx.Done() // only the helper's failure ends it
		return nil
	}, func(context.Context) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("runBehind with a failing helper = %v, want boom", err)
	}
}
