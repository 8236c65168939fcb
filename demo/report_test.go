package demo

import (
	"context"
	"io"

	"github.com/slowpeer/slowpeer/diagnosis"
	"github.com/slowpeer/slowpeer/reports"
)

// The Report of tests that never print one.
func noSlowPeers(context.Context, io.Writer, string) ([]reports.SlowNode, error) { return nil, nil }
func noDiagnosis(io.Writer, []diagnosis.Finding) error                           { return nil }
func noSlowDisks(context.Context, string) (SlowDisks, error)                     { return SlowDisks{}, nil }
func noWriteSlowDisks(io.Writer, SlowDisks) error                                { return nil }
