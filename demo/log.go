package demo

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// quietHandler drops every record once quiet is set. The demo's agents
// stop together, and what each then sees of the others going away
// (connections dropped mid-block) is no news.
type quietHandler struct {
	slog.Handler
	quiet *atomic.Bool
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return !h.quiet.Load() && h.Handler.Enabled(ctx, l)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as), h.quiet}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name), h.quiet}
}
