package group

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestGroupFirstErrorCancelsTheRest(t *testing.T) {
	var logs bytes.Buffer
	g := New(slog.New(slog.NewTextHandler(&logs, nil)))
	var order []string
	boom := errors.New("boom")
	g.Cleanup("store", func() error { order = append(order, "store"); return nil })
	g.Go("waiter", func(ctx context.Context) error {
		<-ctx.Done()
		order = append(order, "waiter saw cancel")
		return errors.New("late") // logged, not returned
	})
	g.Cleanup("picker", func() error { order = append(order, "picker"); return errors.New("stuck") })
	g.Go("failer", func(ctx context.Context) error { return boom })

	err := g.Run(context.Background())
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "failer: boom") ||
		!strings.Contains(err.Error(), "stop picker: stuck") || strings.Contains(err.Error(), "late") {
		t.Fatalf("Run = %v", err)
	}
	if got := strings.Join(order, ", "); got != "waiter saw cancel, picker, store" {
		t.Fatalf("order: %s", got)
	}
	l := logs.String()
	for _, want := range []string{`msg=stopping err="waiter: late"`, `msg="stop failed" component=picker`, `msg=stopped component=store`} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %s:\n%s", want, l)
		}
	}
}

func TestGroupEndsWithContext(t *testing.T) {
	g := New(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	g.Go("a", func(ctx context.Context) error { close(started); <-ctx.Done(); return nil })
	g.Go("b", func(ctx context.Context) error { <-ctx.Done(); return nil })
	cleaned := false
	g.Cleanup("c", func() error { cleaned = true; return nil })
	done := make(chan error)
	go func() { done <- g.Run(ctx) }()
	<-started
	cancel()
	if err := <-done; err != nil || !cleaned {
		t.Fatalf("Run = %v, cleaned %v", err, cleaned)
	}
}

func TestGroupMemberEndingStopsTheGroup(t *testing.T) {
	var logs bytes.Buffer
	g := New(slog.New(slog.NewTextHandler(&logs, nil)))
	g.Go("forever", func(ctx context.Context) error { <-ctx.Done(); return nil })
	g.Go("short", func(ctx context.Context) error { return nil })
	if err := g.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `component=short`) {
		t.Fatalf("the member that ended is not named:\n%s", logs.String())
	}
}

func TestGroupStopBeforeRun(t *testing.T) {
	g := New(nil)
	var order []string
	g.Cleanup("first", func() error { order = append(order, "first"); return nil })
	g.Cleanup("second", func() error { order = append(order, "second"); return nil })
	setup := errors.New("setup failed")
	if err := g.Stop(setup); !errors.Is(err, setup) {
		t.Fatalf("Stop = %v", err)
	}
	if err := g.Stop(nil); err != nil { // nothing left to run
		t.Fatal(err)
	}
	if got := strings.Join(order, " "); got != "second first" {
		t.Fatalf("order %s", got)
	}
}
