// Package group runs the long-running components of a command together:
// the first to return cancels the others, and the cleanups run after,
// last added first.
package group

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Group runs long-running components together, each
// a Run(ctx) error: the first of them to return (with an error or not)
// cancels the others, and once all have returned, the cleanups run in the
// reverse order of their adding (the store added first is closed last).
// Every member and cleanup has a name for the log and the errors.
//
// A group is used by one goroutine: add members and cleanups while
// setting up, then Run once; when setting up fails half-way, Stop runs
// the cleanups added so far. The zero group is not usable; build it with
// New.
type Group struct {
	log      *slog.Logger
	members  []item[func(context.Context) error]
	cleanups []item[func() error]
}

type item[F any] struct {
	name string
	f    F
}

// New returns an empty group logging to log (slog.Default() when nil).
func New(log *slog.Logger) *Group {
	if log == nil {
		log = slog.Default()
	}
	return &Group{log: log}
}

// Go adds a member: Run calls run with a context that ends when Run's
// context does or another member returns.
func (g *Group) Go(name string, run func(ctx context.Context) error) {
	g.members = append(g.members, item[func(context.Context) error]{name, run})
}

// Cleanup adds f, to be called after every member has returned.
func (g *Group) Cleanup(name string, f func() error) {
	g.cleanups = append(g.cleanups, item[func() error]{name, f})
}

// Run runs every member until ctx ends or one returns, then cancels the
// others, waits for them and runs the cleanups (Stop). It returns the
// first error a member returned (named), joined with the cleanups'
// errors; later errors are only logged. It returns nil when every member
// and cleanup did.
func (g *Group) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, len(g.members))
	for _, m := range g.members {
		go func() {
			err := m.f(ctx)
			if err != nil {
				err = fmt.Errorf("%s: %w", m.name, err)
			} else if ctx.Err() == nil {
				g.log.Info("stopping: a component ended", slog.String("component", m.name))
			}
			// Queued before the others see the cancel: the error that
			// ended the group comes before those it caused.
			ended <- err
			cancel()
		}()
	}
	var first error
	for range g.members {
		err := <-ended
		switch {
		case first == nil:
			first = err
		case err != nil:
			g.log.Warn("stopping", slog.Any("err", err))
		}
	}
	return g.Stop(first)
}

// Stop runs the cleanups not run yet, last added first, logging each,
// and returns err joined with their errors.
func (g *Group) Stop(err error) error {
	errs := []error{err}
	for i := len(g.cleanups) - 1; i >= 0; i-- {
		c := g.cleanups[i]
		if cerr := c.f(); cerr != nil {
			g.log.Warn("stop failed", slog.String("component", c.name), slog.Any("err", cerr))
			errs = append(errs, fmt.Errorf("stop %s: %w", c.name, cerr))
			continue
		}
		g.log.Info("stopped", slog.String("component", c.name))
	}
	g.cleanups = nil
	return errors.Join(errs...)
}
