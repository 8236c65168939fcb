package main

import (
	"context"
	"errors"
	"log/slog"

	rungroup "github.com/slowpeer/slowpeer/internal/group"
)

// group runs the long-running components of a subcommand together
// (internal/group): the first to return cancels the others, then the
// cleanups run, last added first.
type group = rungroup.Group

// newGroup returns an empty group logging to log (slog.Default() when nil).
func newGroup(log *slog.Logger) *group { return rungroup.New(log) }

// runBehind runs main and, beside it, helper, which outlives it: helper's
// context ends only once main has returned, so what main still does while
// it stops (an HTTP server draining requests) can lean on helper (the
// picker committing their events). A helper that fails stops main.
// runBehind returns their errors, joined.
func runBehind(ctx context.Context, main, helper func(context.Context) error) error {
	mainCtx, stopMain := context.WithCancel(ctx)
	defer stopMain()
	helperCtx, stopHelper := context.WithCancel(context.WithoutCancel(ctx))
	helped := make(chan error, 1)
	go func() {
		err := helper(helperCtx)
		if err != nil {
			stopMain()
		}
		helped <- err
	}()
	err := main(mainCtx)
	stopHelper()
	return errors.Join(err, <-helped)
}
