package testenv

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestStartStopsAtCleanup(t *testing.T) {
	ended := make(chan struct{})
	t.Run("inner", func(t *testing.T) {
		Start(t, func(ctx context.Context) error {
			<-ctx.Done()
			close(ended)
			return nil
		})
	})
	select {
	case <-ended:
	default:
		t.Fatal("run still running after its test ended")
	}
}

func TestStartReportsError(t *testing.T) {
	ft := &cleanupTB{}
	stop := Start(ft, func(ctx context.Context) error {
		<-ctx.Done()
		return errors.New("broken")
	})
	stop()
	stop() // again: nothing
	for _, f := range ft.cleanups {
		f()
	}
	if len(ft.errors) != 1 || ft.errors[0] != "Run: broken" {
		t.Fatalf("errors %q, want one Run: broken", ft.errors)
	}
}

// cleanupTB records Errorf and keeps its cleanups for the test to run.
type cleanupTB struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (f *cleanupTB) Helper()          {}
func (f *cleanupTB) Cleanup(c func()) { f.cleanups = append(f.cleanups, c) }
func (f *cleanupTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
